//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEnclosesFollowsLinksBeforeClimbing: a destination reached through a
// link that points back inside the source is inside it, however the link
// is spelled; a sibling that shares a name prefix is not.
func TestEnclosesFollowsLinksBeforeClimbing(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	root := filepath.Join(base, "root")
	must(t, os.MkdirAll(filepath.Join(root, "src", "deeper", "deepest"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "srcx"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "x"), 0o755))
	must(t, os.Symlink("../src/deeper", filepath.Join(root, "x", "link")))
	must(t, os.Symlink("x/link/deepest", filepath.Join(root, "chain")))
	must(t, os.MkdirAll(filepath.Join(root, "src", "nested"), 0o755))
	sb, errs := New([]string{root, filepath.Join(root, "src", "nested")})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	defer sb.Close()
	res := func(p string) *Path {
		t.Helper()
		r, err := sb.Resolve(filepath.Join(root, p))
		must(t, err)
		return r
	}
	src := res("src")
	for dst, want := range map[string]bool{
		"x/link/new":         true, // the link's parent on disk is src
		"x/link/gone/deeper": true, // missing parents: the nearest existing one counts
		"chain/new":          true, // a link through a link
		"src/nested/new":     true, // by way of the nested second root too
		"srcx/new":           false,
		"x/new":              false,
		"new":                false,
	} {
		if got := src.Encloses(res(dst)); got != want {
			t.Errorf("src encloses %s = %v, want %v", dst, got, want)
		}
	}
	// The second root's own handle, below src on disk.
	nested, err := sb.Resolve(filepath.Join(root, "src", "nested", "n"))
	must(t, err)
	if !src.Encloses(nested) {
		t.Errorf("src does not enclose %s", nested.Abs)
	}
}
