package tools

import (
	"context"
	"fmt"
)

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
