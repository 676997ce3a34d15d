package driver

import (
	"context"
	"path/filepath"

	"github.com/fsmcp/fsmcp/backend"
)

// systemPaths makes the paths s reports Windows paths: the walkers join
// names with "/" below a root spelled C:\ws (and rg reports .\rel), which
// printed as C:\ws/lf.txt; every other tool prints C:\ws\lf.txt.
func systemPaths(s backend.Searcher) backend.Searcher { return windowsPaths{s} }

type windowsPaths struct{ backend.Searcher }

// winPath is p with "/" as "\" and "." elements dropped; a "/" is never
// part of a Windows name.
func winPath(p string) string { return filepath.Clean(filepath.FromSlash(p)) }

func (s windowsPaths) Grep(ctx context.Context, q backend.GrepQuery, sink backend.Sink) error {
	return s.Searcher.Grep(ctx, q, windowsSink{sink})
}

func (s windowsPaths) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	return s.Searcher.Glob(ctx, q, func(f backend.File) error {
		f.Path = winPath(f.Path)
		return fn(f)
	})
}

type windowsSink struct{ backend.Sink }

func (k windowsSink) File(path string) backend.FileSink { return k.Sink.File(winPath(path)) }
