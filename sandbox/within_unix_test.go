//go:build !windows

package sandbox

import "testing"

// TestWithinAttacks: the one containment rule against its classic
// escapes: a sibling sharing the root's prefix, .. climbing out, trailing
// separators, another case, names that only begin with dots.
func TestWithinAttacks(t *testing.T) {
	for _, c := range []struct {
		root, path, rel string
		ok              bool
	}{
		{"/root", "/root", ".", true},
		{"/root", "/root/a/b", "a/b", true},
		{"/root", "/root-evil", "", false},
		{"/root", "/root-evil/a", "", false},
		{"/root", "/rootx", "", false},
		{"/root", "/roo", "", false},
		{"/root", "/", "", false},
		{"/root", "/root/../x", "", false},
		{"/root", "/root/a/../../root-evil", "", false},
		{"/root", "/root/..", "", false},
		{"/root", "/root/a/..", ".", true},
		{"/root/a/..", "/root/b", "b", true},
		{"/root/", "/root/a", "a", true},
		{"/root//", "/root", ".", true},
		{"/root", "/root/a/", "a", true},
		{"/root", "/root//a", "a", true},
		{"/root", "/ROOT/a", "", false}, // Unix names are case-sensitive
		{"/root", "/root/..x", "..x", true},
		{"/root", "/root/.../a", ".../a", true},
		{"/", "/", ".", true},
		{"/", "/x/y", "x/y", true},
	} {
		rel, ok := Within(c.root, c.path)
		if rel != c.rel || ok != c.ok {
			t.Errorf("Within(%q, %q) = %q, %v; want %q, %v", c.root, c.path, rel, ok, c.rel, c.ok)
		}
	}
	if r, ok := WithinAny([]string{"/a", "/root", "/root/b"}, "/root/b/c"); !ok || r != "/root" {
		t.Errorf("WithinAny = %q, %v; want the first root that holds it", r, ok)
	}
	if _, ok := WithinAny([]string{"/root"}, "/root-evil"); ok {
		t.Error("WithinAny let /root-evil into /root")
	}
}
