package sandbox

import (
	"errors"
	"path/filepath"
	"strings"
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

// TestExpandHomeFrom: "~", "~/" and the system's own separator after "~"
// are the home; ~user, a ~ inside a path and a relative path are left
// alone; an unknown home is an error naming the path.
func TestExpandHomeFrom(t *testing.T) {
	home := func() (string, error) { return filepath.FromSlash("/home/me"), nil }
	sep := string(filepath.Separator)
	for in, want := range map[string]string{
		"~":             "/home/me",
		"~/src":         "/home/me/src",
		"~/src/":        "/home/me/src",
		"~" + sep + "x": "/home/me/x",
		"~bob/x":        "~bob/x",
		"/a/~":          "/a/~",
		"rel":           "rel",
	} {
		got, err := ExpandHomeFrom(in, home)
		if err != nil || got != filepath.FromSlash(want) && got != want {
			t.Errorf("ExpandHomeFrom(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ExpandHomeFrom("~/x", func() (string, error) { return "", errors.New("no HOME") }); err == nil || !strings.Contains(err.Error(), `"~/x"`) {
		t.Errorf("unknown home: %v", err)
	}
}
