package files_test

import (
	"context"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/files"
)

// globOf is a searcher whose Glob yields fixed files.
type globOf []backend.File

func (g globOf) Name() string { return "fixed" }
func (g globOf) Grep(context.Context, backend.GrepQuery, backend.Sink) error {
	return nil
}
func (g globOf) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	for _, f := range g {
		if err := fn(f); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func TestGlobRanksAndCounts(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := globOf{{Path: "/r/a", ModTime: t0}, {Path: "/r/c", ModTime: t0.Add(2 * time.Second)}, {Path: "/r/b", ModTime: t0.Add(time.Second)}, {Path: "/r/d", ModTime: t0}}
	g, err := files.Glob(context.Background(), s, backend.GlobQuery{}, files.GlobOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, f := range g.Files {
		got += f.Path + " "
	}
	if got != "/r/c /r/b /r/a " || g.Total != 4 || !g.Truncated() || g.Partial {
		t.Errorf("newest first: %q total %d partial %v", got, g.Total, g.Partial)
	}
	g, _ = files.Glob(context.Background(), s, backend.GlobQuery{}, files.GlobOptions{Limit: 2, Order: files.ByPath})
	if len(g.Files) != 2 || g.Files[0].Path != "/r/a" || g.Files[1].Path != "/r/b" {
		t.Errorf("by path: %v", g.Files)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g, err = files.Glob(ctx, s, backend.GlobQuery{}, files.GlobOptions{})
	if err != nil || !g.Partial || g.Total != 4 {
		t.Errorf("cancelled: %v %+v", err, g)
	}
}
