package driver

import (
	"context"
	"errors"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/internal/test/goroot"
)

func TestSelect(t *testing.T) {
	native := &fakeSearcher{}
	s, err := Select("native", native)
	if err != nil || s != native {
		t.Errorf("native: %v %v", s, err)
	}
	if _, err := Select("bogus", native); err == nil {
		t.Error("unknown kind accepted")
	}
	saved := lookPath
	defer func() { lookPath = saved }()
	lookPath = func(string) (string, error) { return "", exec.ErrNotFound }
	if s, err := Select("auto", native); err != nil || s != native {
		t.Errorf("auto without rg: %v %v", s, err)
	}
	if _, err := Select("rg", native); err != ErrNoRG {
		t.Errorf("rg without rg: %v", err)
	}
	lookPath = func(string) (string, error) { return "/usr/bin/rg", nil }
	if s, err := Select("auto", native); err != nil || s.Name() != "rg" {
		t.Errorf("auto with rg: %v %v", s, err)
	}
	lookPath = exec.LookPath
	if s, err := Select("find", native); err == nil && s.Name() != "find" {
		t.Errorf("find: %v", s.Name())
	}
}

type fakeSearcher struct{}

func (*fakeSearcher) Name() string                                                { return "native" }
func (*fakeSearcher) Grep(context.Context, backend.GrepQuery, backend.Sink) error { return nil }
func (*fakeSearcher) Glob(context.Context, backend.GlobQuery, func(backend.File) error) error {
	return nil
}

// TestRGCancel: cancelling kills rg at once and the result is partial.
func TestRGCancel(t *testing.T) {
	rg, err := NewRG("")
	if err != nil {
		t.Skip("SKIPPED: rg is not on PATH — rg cancellation not tested")
	}
	// A slow pattern over a big tree, stopped after 30ms.
	q := backend.GrepQuery{Pattern: `(\w+\s*){5}x`, Mode: backend.Content, Paths: []string{goroot.Dir(t)}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	r, err := backend.Run(ctx, rg, q, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > time.Minute { // Partial shows the stop; this only bounds a hang
		t.Errorf("cancelled rg search took %v", el)
	}
	if !r.Partial {
		t.Error("result not marked partial")
	}
	if out, _ := exec.Command("pgrep", "-f", `\(\\w\+\\s\*\)\{5\}x`).Output(); len(out) > 0 {
		t.Errorf("rg still running: %s", out)
	}
}

// TestRGStartCutByTheCallIsNoStartError: a call whose time runs out
// while rg starts (a tight --timeout on a busy machine) is a cut search,
// never "rg cannot run", which would send every later search to the
// native scanner.
func TestRGStartCutByTheCallIsNoStartError(t *testing.T) {
	rg, err := NewRG("")
	if err != nil {
		t.Skip("SKIPPED: rg is not on PATH")
	}
	// The call's time runs out between rg's own look at it and its start.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	ctx := &expiresAfterFirstLook{Context: done}
	err = rg.Grep(ctx, backend.GrepQuery{Pattern: "x", Mode: backend.Content, Paths: []string{t.TempDir()}}, backend.NewCollector(backend.Content, 0, 10))
	var se *StartError
	if errors.As(err, &se) {
		t.Fatalf("a cancelled call is said to be an rg that cannot run: %v", err)
	}
}

// expiresAfterFirstLook is a context whose Err is nil the first time it
// is asked, and Canceled after: a deadline that passes at that moment.
type expiresAfterFirstLook struct {
	context.Context
	looked atomic.Bool
}

func (c *expiresAfterFirstLook) Err() error {
	if !c.looked.Swap(true) {
		return nil
	}
	return c.Context.Err()
}
