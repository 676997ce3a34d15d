package backend

import (
	"context"
	"fmt"
	"testing"
)

// endless emits matching files until its context ends, as a backend whose
// walk is cancelled does.
type endless struct{ emitted int }

func (e *endless) Name() string { return "endless" }
func (e *endless) Glob(context.Context, GlobQuery, func(File) error) error {
	return nil
}
func (e *endless) Grep(ctx context.Context, q GrepQuery, sink Sink) error {
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		e.emitted++
		fs := sink.File(fmt.Sprintf("/f%06d", i))
		for l := 1; l <= 10; l++ {
			fs.Line(l, []byte("match"), false) // a backend may ignore the answer
		}
		fs.End(10)
	}
}

// A cap ends the search: the backend sees its context cancelled, Grep
// returns no error, and the result says it was capped, not partial.
func TestCapsStopTheSearch(t *testing.T) {
	s := &endless{}
	r, err := RunCapped(context.Background(), s, GrepQuery{Mode: Content}, 0, 1000, Caps{Files: 3, PerFile: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Capped || r.Partial || r.Files != 3 || r.Total != 6 || s.emitted != 3 {
		t.Errorf("capped %v partial %v files %d total %d emitted %d", r.Capped, r.Partial, r.Files, r.Total, s.emitted)
	}
	for _, e := range r.Entries {
		if e.Line > 2 {
			t.Errorf("line %d of %s kept past the per-file cap", e.Line, e.Path)
		}
	}
	// The caller's own cancellation is still a partial result.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err = RunCapped(ctx, &endless{}, GrepQuery{}, 0, 10, Caps{Files: 3})
	if err != nil || !r.Partial || r.Capped {
		t.Errorf("cancelled: %v %+v", err, r)
	}
}
