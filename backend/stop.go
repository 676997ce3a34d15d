package backend

import (
	"context"
	"errors"
	"sync/atomic"
)

// Grep runs s.Grep so that sink can stop it (see Sink): after a FileSink's
// Line returns false its later lines are dropped; after an End returns
// false later files are dropped and the search is cancelled, and Grep
// returns nil, not a context error — the sink has what it asked for. Only
// the caller's own ctx ending makes the result partial.
func Grep(ctx context.Context, s Searcher, q GrepQuery, sink Sink) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ss := &stopSink{sink: sink, cancel: cancel}
	err := s.Grep(ctx, q, ss)
	if context.Cause(ctx) == errStopped && (err == nil || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
}

// errStopped is the cause of a search cancelled because the sink said stop.
var errStopped = errors.New("the sink stopped the search")

type stopSink struct {
	sink    Sink
	cancel  context.CancelCauseFunc
	stopped atomic.Bool
}

func (s *stopSink) File(path string) FileSink {
	if s.stopped.Load() {
		return dropped{}
	}
	return &stopFile{s: s, fs: s.sink.File(path)}
}

type stopFile struct {
	s    *stopSink
	fs   FileSink
	full bool // Line said stop
}

func (f *stopFile) Line(num int, text []byte, context bool) bool {
	if f.full || f.s.stopped.Load() {
		return false
	}
	f.full = !f.fs.Line(num, text, context)
	return !f.full
}

func (f *stopFile) End(count int) bool {
	if !f.fs.End(count) {
		f.s.stopped.Store(true)
		f.s.cancel(errStopped)
		return false
	}
	return !f.s.stopped.Load()
}

// TakeFiles passes a kept result to a Collector below (Pages).
func (s *stopSink) TakeFiles(files []KeptFile) bool {
	c, ok := s.sink.(*Collector)
	return ok && c.TakeFiles(files)
}

// dropped is a file that arrived after the stop.
type dropped struct{}

func (dropped) Line(int, []byte, bool) bool { return false }
func (dropped) End(int) bool                { return false }
