package peekaboo

import (
	"path/filepath"
	"testing"
)

// TestFoundNamesAreJudgedByWholeNames: a found file is named from the
// root that holds it by whole names: one under a directory whose name
// begins with two dots is inside (it was named by its full path, so an
// include pattern missed it), one in a sibling sharing the root's prefix
// is not.
func TestFoundNamesAreJudgedByWholeNames(t *testing.T) {
	root := filepath.FromSlash("/w/root")
	s := &includeSink{roots: []string{root}}
	for _, c := range []struct{ path, want string }{
		{"/w/root/a/b.go", "/a/b.go"},
		{"/w/root/..x/b.go", "/..x/b.go"},
		{"/w/root-evil/b.go", "/w/root-evil/b.go"},
	} {
		p := filepath.FromSlash(c.path)
		want := c.want
		if c.want == c.path {
			want = p
		}
		if got := s.name(p); got != want {
			t.Errorf("name(%s) = %q; want %q", p, got, want)
		}
	}
}
