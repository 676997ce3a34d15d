package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture builds: base/root (the allowed dir) with a file and a subdir,
// base/root_evil (a prefix sibling), base/outside/secret, links out of the
// root, and base/rootlink -> root.
type fixture struct {
	base, root, outside string
	sb                  *Sandbox
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{base: base, root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside")}
	must(t, os.MkdirAll(filepath.Join(f.root, "sub"), 0o755))
	must(t, os.MkdirAll(f.outside, 0o755))
	must(t, os.MkdirAll(filepath.Join(base, "root_evil"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.root, "a.txt"), []byte("hello\n"), 0o640))
	must(t, os.WriteFile(filepath.Join(f.outside, "secret"), []byte("secret\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(base, "root_evil", "x"), []byte("evil\n"), 0o600))
	must(t, os.Symlink(filepath.Join(f.outside, "secret"), filepath.Join(f.root, "filelink")))
	must(t, os.Symlink(f.outside, filepath.Join(f.root, "dirlink")))
	must(t, os.Symlink(filepath.Join(f.outside, "created"), filepath.Join(f.root, "dangling")))
	must(t, os.Symlink("a.txt", filepath.Join(f.root, "inlink")))
	must(t, os.Symlink(f.root, filepath.Join(base, "rootlink")))
	sb, errs := New([]string{f.root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	f.sb = sb
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestResolveRefusals(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name, path string
		want       string
	}{
		{"prefix sibling", filepath.Join(f.base, "root_evil", "x"), "outside allowed directories"},
		{"prefix sibling dir", filepath.Join(f.base, "root_evil"), "outside allowed directories"},
		{"dotdot", filepath.Join(f.root, "..", "outside", "secret"), "outside allowed directories"},
		{"dotdot raw", f.root + "/sub/../../outside/secret", "outside allowed directories"},
		{"parent", f.base, "outside allowed directories"},
		{"relative", "a.txt", "path must be absolute"},
		{"relative dotdot", "../outside/secret", "path must be absolute"},
		{"NUL", f.root + "/a.txt\x00.png", "NUL byte"},
		{"empty", "", "path is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.sb.Resolve(c.path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Resolve(%q) = %v, want error containing %q", c.path, err, c.want)
			}
		})
	}
}

func TestPercentEncodedDotsAreNames(t *testing.T) {
	f := newFixture(t)
	// In a plain path %2e%2e is a file name, not "..": it stays inside.
	p, err := f.sb.Resolve(f.root + "/%2e%2e/outside")
	if err != nil {
		t.Fatal(err)
	}
	if p.Rel != "%2e%2e/outside" {
		t.Fatalf("Rel = %q", p.Rel)
	}
	if _, err := p.Stat(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat = %v, want not found", err)
	}
}

func TestSymlinkOutIsRefused(t *testing.T) {
	f := newFixture(t)
	for _, name := range []string{"filelink", "dirlink/secret", "dirlink", "dangling"} {
		p, err := f.sb.Resolve(filepath.Join(f.root, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Stat(); !IsOutside(err) {
			t.Errorf("Stat(%s) = %v, want outside", name, err)
		}
		if _, err := p.ReadFile(0); !IsOutside(err) {
			t.Errorf("ReadFile(%s) = %v, want outside", name, err)
		}
		if err := p.WriteFile([]byte("pwned"), 0o644); !IsOutside(err) {
			t.Errorf("WriteFile(%s) = %v, want outside", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(f.outside, "created")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("write through a dangling link created its target: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.outside, "secret")); string(b) != "secret\n" {
		t.Fatalf("secret changed: %q", b)
	}
	p := f.sb.mustResolve(t, "dirlink/newdir")
	if err := p.MkdirAll(0o755); !IsOutside(err) {
		t.Errorf("MkdirAll(dirlink/newdir) = %v, want outside", err)
	}
	if _, err := os.Stat(filepath.Join(f.outside, "newdir")); err == nil {
		t.Fatal("MkdirAll through a link created a directory outside")
	}
	if _, err := f.sb.RealPath(filepath.Join(f.root, "dangling")); !IsOutside(err) {
		t.Errorf("RealPath(dangling) = %v, want outside", err)
	}
	if _, err := f.sb.RealPath(filepath.Join(f.root, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("RealPath(missing) = %v, want not found", err)
	}
	if _, err := f.sb.RealPath(filepath.Join(f.root, "dirlink")); !IsOutside(err) {
		t.Errorf("RealPath(dirlink) = %v, want outside", err)
	}
}

func (s *Sandbox) mustResolve(t *testing.T, rel string) *Path {
	t.Helper()
	p, err := s.Resolve(filepath.Join(s.roots[0].Path, rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSymlinkInsideIsFollowed(t *testing.T) {
	f := newFixture(t)
	p := f.sb.mustResolve(t, "inlink")
	b, err := p.ReadFile(0)
	if err != nil || string(b) != "hello\n" {
		t.Fatalf("ReadFile(inlink) = %q, %v", b, err)
	}
	must(t, p.WriteFile([]byte("changed\n"), 0o644))
	fi, err := os.Lstat(filepath.Join(f.root, "inlink"))
	must(t, err)
	if fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("writing through a link replaced the link")
	}
	b, _ = os.ReadFile(filepath.Join(f.root, "a.txt"))
	if string(b) != "changed\n" {
		t.Fatalf("target = %q", b)
	}
}

func TestRootThroughSymlinkWorksByBothNames(t *testing.T) {
	f := newFixture(t)
	link := filepath.Join(f.base, "rootlink")
	sb, errs := New([]string{link})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	defer sb.Close()
	if got := sb.Roots(); len(got) != 1 || got[0] != f.root {
		t.Fatalf("Roots = %v, want [%s]", got, f.root)
	}
	for _, p := range []string{filepath.Join(link, "a.txt"), filepath.Join(f.root, "a.txt")} {
		rp, err := sb.Resolve(p)
		if err != nil {
			t.Fatalf("Resolve(%s): %v", p, err)
		}
		if b, err := rp.ReadFile(0); err != nil || string(b) != "hello\n" {
			t.Fatalf("ReadFile(%s) = %q, %v", p, b, err)
		}
	}
	if _, err := sb.Resolve(filepath.Join(f.base, "rootlink_evil")); err == nil {
		t.Fatal("prefix sibling of the link name was allowed")
	}
}

func TestNewSkipsMissingRoots(t *testing.T) {
	f := newFixture(t)
	sb, errs := New([]string{filepath.Join(f.base, "missing"), f.root, filepath.Join(f.root, "a.txt")})
	defer sb.Close()
	if len(errs) != 2 {
		t.Fatalf("errs = %v, want 2 (missing, not a dir)", errs)
	}
	if len(sb.Roots()) != 1 {
		t.Fatalf("Roots = %v", sb.Roots())
	}
	_, errs = New([]string{filepath.Join(f.base, "missing")})
	if !errors.Is(errors.Join(errs...), ErrNoRoots) {
		t.Fatalf("errs = %v, want ErrNoRoots", errs)
	}
}

func TestWriteFileAtomicKeepsMode(t *testing.T) {
	f := newFixture(t)
	p := f.sb.mustResolve(t, "a.txt")
	must(t, p.WriteFile([]byte("new\n"), 0o644))
	fi, err := os.Stat(filepath.Join(f.root, "a.txt"))
	must(t, err)
	if fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode = %v, want 0640", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(f.root)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".fsmcp-") {
			t.Fatalf("temp file left behind: %s", e.Name())
		}
	}
	q := f.sb.mustResolve(t, "deep/er/new.txt")
	must(t, q.WriteFile([]byte("x"), 0o644))
	if b, _ := os.ReadFile(filepath.Join(f.root, "deep/er/new.txt")); string(b) != "x" {
		t.Fatalf("content = %q", b)
	}
}

func TestNarrowAndExtend(t *testing.T) {
	f := newFixture(t)
	n, err := f.sb.Narrow([]string{filepath.Join(f.root, "sub")})
	must(t, err)
	defer n.Close()
	if n.Contains(filepath.Join(f.root, "a.txt")) {
		t.Fatal("narrowed sandbox still allows the parent's file")
	}
	if !n.Contains(filepath.Join(f.root, "sub", "x")) {
		t.Fatal("narrowed sandbox refuses its own dir")
	}
	if _, err := f.sb.Narrow([]string{f.outside}); !IsOutside(err) {
		t.Fatalf("Narrow(outside) = %v, want outside", err)
	}
	if _, err := f.sb.Narrow([]string{filepath.Join(f.root, "dirlink")}); !IsOutside(err) {
		t.Fatalf("Narrow(link out) = %v, want outside", err)
	}
	e, err := f.sb.Extend([]string{f.outside})
	must(t, err)
	if !e.Contains(filepath.Join(f.outside, "secret")) || !e.Contains(filepath.Join(f.root, "a.txt")) {
		t.Fatal("extended sandbox lacks a root")
	}
	e.Close()
	// Closing the extension must not close the base roots.
	if _, err := f.sb.mustResolve(t, "a.txt").ReadFile(0); err != nil {
		t.Fatalf("base sandbox broken after Extend.Close: %v", err)
	}
}

// TestExtendUnderARootNeverFollowsALinkOut: a trusted _meta.allowed_dirs
// entry that lies under an existing root is a path the agent can change;
// a link out there is refused, not added as a root (an entry outside every
// root is still added by name).
func TestExtendUnderARootNeverFollowsALinkOut(t *testing.T) {
	f := newFixture(t)
	if e, err := f.sb.Extend([]string{filepath.Join(f.root, "dirlink")}); !IsOutside(err) {
		if err == nil {
			e.Close()
		}
		t.Fatalf("Extend(link out under a root) = %v, want outside", err)
	}
	e, err := f.sb.Extend([]string{filepath.Join(f.root, "sub"), filepath.Join(f.base, "root_evil")})
	must(t, err)
	defer e.Close()
	if !e.Contains(filepath.Join(f.root, "sub", "x")) || !e.Contains(filepath.Join(f.base, "root_evil", "x")) || !e.Contains(filepath.Join(f.root, "a.txt")) {
		t.Fatalf("extended roots: %v", e.Roots())
	}
}

func TestRemoveRefusesRoot(t *testing.T) {
	f := newFixture(t)
	p := f.sb.mustResolve(t, ".")
	if err := p.RemoveAll(); err == nil {
		t.Fatal("RemoveAll on the root succeeded")
	}
	if _, err := os.Stat(f.root); err != nil {
		t.Fatal(err)
	}
}
