package sandbox

import (
	"path/filepath"
	"testing"
)

func TestExpandHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cases := map[string]string{
		"~":         home,
		"~/a/b.txt": filepath.Join(home, "a/b.txt"),
		"~other/x":  "~other/x",
		"/abs/~/x":  "/abs/~/x",
		"rel/~":     "rel/~",
		"":          "",
	}
	for in, want := range cases {
		if got := ExpandHome(in); got != want {
			t.Errorf("ExpandHome(%q) = %q, want %q", in, got, want)
		}
	}
}
