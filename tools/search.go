package tools

import (
	"context"
	"fmt"
	"sync"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/fallback"
)

// autoSearcher is the backend used when Deps.Searcher is nil: rg when it
// is on PATH at first use, else the native scanner.
var autoSearcher = sync.OnceValue(func() backend.Searcher {
	s, err := backend.Select("auto", fallback.New())
	if err != nil {
		return fallback.New()
	}
	return s
})

// searcher returns the search backend for fs_grep and fs_glob.
func (d *Deps) searcher() backend.Searcher {
	if d.Searcher != nil {
		return d.Searcher
	}
	return autoSearcher()
}

// searchPaths resolves a tool's optional path into the real, contained
// paths handed to a search backend (every root when path is empty).
// Backends may run external programs, so symlinks are resolved first
// (sandbox.RealPath); the walk itself never follows a symlink.
func (c *Call) searchPaths(path string) ([]string, error) {
	if path == "" {
		return c.Sandbox.Roots(), nil
	}
	real, err := c.Sandbox.RealPath(path)
	if err != nil {
		return nil, err
	}
	return []string{real}, nil
}

// progressFunc forwards a backend's file count as progress notifications
// (only sent when the client asked for progress).
func (c *Call) progressFunc(ctx context.Context) func(int64) {
	if c.Req == nil || c.Req.Params.GetProgressToken() == nil {
		return nil
	}
	return func(n int64) { c.Progress(ctx, float64(n), 0, fmt.Sprintf("%d files searched", n)) }
}
