package files

import (
	"context"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/fault"
)

// endless is a text file without end: a read that ignores its context
// never returns.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "line\n"[i%5]
	}
	return len(p), nil
}

// TestReadLinesStopsWhenTheCallEnds pins issue 25: fs_read ignored
// --timeout (a 1 GiB read finished in 0.43 s under --timeout 50ms) while
// it counted lines for the total. With the window read it returns it and
// a lower bound of the total; before that, a timeout error.
func TestReadLinesStopsWhenTheCallEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l, err := ReadLinesContext(ctx, endless{}, 2, 3, 2000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !l.AtLeast || len(l.Text) != 3 || l.Text[0] != "line" || l.Total < 4 {
		t.Fatalf("got %+v", l)
	}
	_, err = ReadLinesContext(ctx, endless{}, 1<<40, 3, 2000, 0)
	if fault.KindOf(err) != fault.Timeout || !strings.Contains(err.Error(), "--timeout") {
		t.Fatalf("err = %v, want a timeout before the window", err)
	}
}

// A window near the start of a huge file does not read all of it to
// count lines: past countPast bytes the total is a lower bound.
func TestReadLinesCountsTheRestWithinABound(t *testing.T) {
	l, err := ReadLinesContext(context.Background(), endless{}, 1, 2, 2000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !l.AtLeast || len(l.Text) != 2 || l.Total < countPast/6 {
		t.Fatalf("got %d lines, total %d, at least %v", len(l.Text), l.Total, l.AtLeast)
	}
}
