package driver

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/fsmcp/fsmcp/backend"
)

// rgWithNativeGlob is what auto picks when rg is on PATH: rg greps, and
// the native walker lists fs_glob's matches. A glob must stat every
// match for its newest-first order; the native walker stats each entry
// relative to the directory it already holds as it lists, while rg lists
// and each path is stat'ed again afterwards. On the Linux tree that is
// 0.9x against 1.3–1.7x of rg --files alone (make bench-linux), and the
// openat walk leaves no window in which a swapped directory could lend an
// outside file's size or time to an inside name. The answers are the same
// (the parity tests hold both walkers to rg's ignore rules);
// --search-backend rg keeps rg for both.
//
// A search rg cannot run (StartError) is served by the native scanner,
// which gives the same answers, unless rg had already sent results (then
// its error stands). A binary that failed to run serves every later
// search natively too; a binary refused for one call's roots only that
// call. Each is said once on stderr, with the reason.
type rgWithNativeGlob struct {
	*RG
	native backend.Searcher
	state  *fallbackState
}

type fallbackState struct {
	log    *slog.Logger
	broken atomic.Bool
	said   [2]sync.Once // broken, refused for a call
}

func (s rgWithNativeGlob) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	return s.native.Glob(ctx, q, fn)
}

func (s rgWithNativeGlob) Grep(ctx context.Context, q backend.GrepQuery, sink backend.Sink) error {
	if s.state.broken.Load() {
		return s.native.Grep(ctx, q, sink)
	}
	cs := &countingSink{Sink: sink}
	err := s.RG.Grep(ctx, q, cs)
	var se *StartError
	if !errors.As(err, &se) {
		return err
	}
	if se.ForCall {
		s.state.say(1, "rg is not run for a search whose allowed directories hold it; that search uses the native scanner", se)
	} else {
		s.state.broken.Store(true)
		s.state.say(0, "rg cannot run; searches use the native scanner from now on", se)
	}
	if cs.files.Load() > 0 {
		return err
	}
	return s.native.Grep(ctx, q, sink)
}

func (st *fallbackState) say(i int, msg string, err error) {
	st.said[i].Do(func() {
		if st.log != nil {
			st.log.Warn(msg, "reason", err.Error())
		}
	})
}

// countingSink counts the files that reached sink.
type countingSink struct {
	backend.Sink
	files atomic.Int64
}

func (c *countingSink) File(path string) backend.FileSink {
	c.files.Add(1)
	return c.Sink.File(path)
}
