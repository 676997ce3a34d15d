package driver

import (
	"context"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
)

// slashSearcher reports paths as the walkers build them on Windows.
type slashSearcher struct{}

func (slashSearcher) Name() string { return "native" }
func (slashSearcher) Grep(ctx context.Context, q backend.GrepQuery, sink backend.Sink) error {
	fs := sink.File(`C:\ws/sub/a.txt`)
	fs.Line(1, []byte("x"), false)
	fs.End(1)
	return nil
}
func (slashSearcher) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	return fn(backend.File{Path: `C:\ws/.\lf.txt`})
}

// TestWindowsSearchPathsInTheSystemsForm pins that fs_glob's and fs_grep's
// paths print as C:\ws\lf.txt, not C:\ws/lf.txt.
func TestWindowsSearchPathsInTheSystemsForm(t *testing.T) {
	s, err := Select("native", slashSearcher{})
	if err != nil {
		t.Fatal(err)
	}
	var globbed string
	s.Glob(context.Background(), backend.GlobQuery{}, func(f backend.File) error { globbed = f.Path; return nil })
	if globbed != `C:\ws\lf.txt` {
		t.Errorf("glob path %q, want C:\\ws\\lf.txt", globbed)
	}
	c := backend.NewCollector(backend.FilesWithMatches, 0, 0)
	if err := s.Grep(context.Background(), backend.GrepQuery{}, c); err != nil {
		t.Fatal(err)
	}
	r, _ := c.Result(nil)
	if len(r.Entries) != 1 || r.Entries[0].Path != `C:\ws\sub\a.txt` {
		t.Errorf("grep entries %+v, want C:\\ws\\sub\\a.txt", r.Entries)
	}
}
