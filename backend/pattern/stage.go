package pattern

import (
	"context"

	"github.com/fsmcp/fsmcp/backend"
)

// Compiling is the search stack's door (stack.New puts it first): it
// compiles a grep query's pattern once, refuses a bad one before the
// search waits for a slot, and hands next the query carrying the
// compiled value (GrepQuery.Compiled), which every stage below reads
// through Of. Globs pass through.
func Compiling(next backend.Searcher) backend.Searcher { return compiling{next} }

type compiling struct{ next backend.Searcher }

func (c compiling) Name() string { return c.next.Name() }

func (c compiling) Grep(ctx context.Context, q backend.GrepQuery, sink backend.Sink) error {
	p, err := Of(q)
	if err != nil {
		return err
	}
	q.Compiled = p
	return c.next.Grep(ctx, q, sink)
}

func (c compiling) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	return c.next.Glob(ctx, q, fn)
}
