package driver

import (
	"path/filepath"
	"testing"
)

// TestWithinIsByWholeComponents: rg's chain is checked against the roots
// by whole path components, as the sandbox checks a path: a prefix
// sibling is outside, the root itself and "/" hold.
func TestWithinIsByWholeComponents(t *testing.T) {
	for _, c := range []struct {
		p    string
		dirs []string
		want string
	}{
		{"/tmp/root/bin/rg", []string{"/tmp/root"}, "/tmp/root"},
		{"/tmp/root", []string{"/tmp/root"}, "/tmp/root"},
		{"/tmp/root_evil/rg", []string{"/tmp/root"}, ""},
		{"/tmp/rootrg", []string{"/tmp/root"}, ""},
		{"/usr/bin/rg", []string{"/"}, "/"},
		{"/usr/bin/rg", []string{"/tmp/a", "/usr"}, "/usr"},
		{"/usr/bin/rg", nil, ""},
	} {
		var dirs []string
		for _, d := range c.dirs {
			dirs = append(dirs, filepath.FromSlash(d))
		}
		if got := within(filepath.FromSlash(c.p), dirs); got != filepath.FromSlash(c.want) {
			t.Errorf("within(%q, %q) = %q, want %q", c.p, c.dirs, got, c.want)
		}
	}
}

// TestVia: the words the start-up line and --version use.
func TestVia(t *testing.T) {
	for _, c := range []struct {
		p             string
		links         []string
		final, interp string
		bin, want     string
	}{
		{"/usr/bin/rg", nil, "/usr/bin/rg", "", "/usr/bin/rg", "on PATH"},
		{"/a/rg", []string{"/a/rg", "/b/rg"}, "/usr/bin/rg", "", "/usr/bin/rg", "on PATH as /a/rg -> /b/rg -> /usr/bin/rg (symbolic links)"},
		{"/s/rg", nil, "/s/rg", "/bin/sh", "/usr/bin/rg", "on PATH as /s/rg, a script run by /bin/sh that hands over to /usr/bin/rg"},
		{"/s/rg", []string{"/s/rg"}, "/m/mise", "", "/i/rg", "on PATH as /s/rg -> /m/mise, a program that hands over to /i/rg"},
	} {
		if got := via(c.p, c.links, c.final, c.interp, c.bin); got != c.want {
			t.Errorf("via(%q) = %q, want %q", c.p, got, c.want)
		}
	}
}
