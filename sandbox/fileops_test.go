package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestLinkInside(t *testing.T) {
	f := newFixture(t)
	sub := f.sb.mustResolve(t, "sub/x")
	cases := map[string]bool{
		"../a.txt":                    true,
		"y":                           true,
		"../../outside/secret":        false,
		"..":                          true, // the root itself
		"../..":                       false,
		filepath.Join(f.root, "a"):    true,
		filepath.Join(f.outside, "s"): false,
		f.root + "_evil/x":            false,
	}
	for target, want := range cases {
		if got := sub.LinkInside(target); got != want {
			t.Errorf("LinkInside(%q) = %v, want %v", target, got, want)
		}
	}
}

func TestRenameNoReplace(t *testing.T) {
	f := newFixture(t)
	src := f.sb.mustResolve(t, "a.txt")
	dst := f.sb.mustResolve(t, "sub/a.txt")
	if err := src.RenameNoReplace(dst); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(f.root, "b.txt"), []byte("b"), 0o644)
	err := f.sb.mustResolve(t, "b.txt").RenameNoReplace(dst)
	var ee *ExistsError
	if !errors.As(err, &ee) || !errors.Is(err, fs.ErrExist) || err.Error() != dst.Abs+" already exists" {
		t.Fatalf("rename onto an existing file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "sub", "a.txt")); string(b) != "hello\n" {
		t.Errorf("the existing file was replaced")
	}
	// Through a symlinked directory out of the root: refused.
	if err := f.sb.mustResolve(t, "b.txt").RenameNoReplace(f.sb.mustResolve(t, "dirlink/b.txt")); !IsOutside(err) {
		t.Errorf("rename into dirlink: %v", err)
	}
}

func TestInfo(t *testing.T) {
	f := newFixture(t)
	st, err := f.sb.mustResolve(t, "a.txt").Info()
	if err != nil || st.Size != 6 || !st.Mode.IsRegular() {
		t.Fatalf("info a.txt: %v %+v", err, st)
	}
	st, err = f.sb.mustResolve(t, "filelink").Info() // the link itself, not followed
	if err != nil || st.Mode.Type() != fs.ModeSymlink {
		t.Fatalf("info filelink: %v", err)
	}
	if st, err = f.sb.mustResolve(t, ".").Info(); err != nil || !st.Mode.IsDir() {
		t.Fatalf("info root: %v", err)
	}
	if _, err := f.sb.mustResolve(t, "dirlink/secret").Info(); !IsOutside(err) {
		t.Errorf("info through dirlink: %v", err)
	}
}

// TestRenameNoReplaceAcrossRoots: on Linux and macOS one rename spans
// two roots (the object moves whole: its inode, links and attributes),
// refuses an existing name there, and still takes each name beneath its
// own root; elsewhere it is ErrCrossRoot, and the caller copies.
func TestRenameNoReplaceAcrossRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	a, b, out := filepath.Join(base, "a"), filepath.Join(base, "b"), filepath.Join(base, "out")
	for _, d := range []string{a, b, out} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.WriteFile(filepath.Join(a, "f"), []byte("f"), 0o644))
	must(t, os.WriteFile(filepath.Join(b, "taken"), []byte("t"), 0o644))
	must(t, os.Symlink(out, filepath.Join(b, "dirlink")))
	sb, errs := New([]string{a, b})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	defer sb.Close()
	resolve := func(p string) *Path {
		t.Helper()
		r, err := sb.Resolve(p)
		must(t, err)
		return r
	}
	src := resolve(filepath.Join(a, "f"))
	err = src.RenameNoReplace(resolve(filepath.Join(b, "f")))
	if !renamesAcrossRoots {
		if !errors.Is(err, ErrCrossRoot) {
			t.Fatalf("rename across roots here: %v, want ErrCrossRoot", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(b, "f")); err != nil {
		t.Fatalf("not moved: %v", err)
	}
	back := resolve(filepath.Join(b, "f"))
	if err := back.RenameNoReplace(resolve(filepath.Join(b, "taken"))); !errors.Is(err, fs.ErrExist) {
		t.Errorf("rename onto an existing name in the other root: %v", err)
	}
	if err := back.RenameNoReplace(resolve(filepath.Join(b, "dirlink", "f"))); !IsOutside(err) {
		t.Errorf("rename through a link out of the other root: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(out, "f")); err == nil {
		t.Error("a file landed outside the roots")
	}
}

// TestTempSiblingsAreWhatTempSiblingMakes: TempSiblings lists the hidden
// names TempSibling and Aside made beside a path, and no other name: not
// another path's, not one of another length or ending.
func TestTempSiblingsAreWhatTempSiblingMakes(t *testing.T) {
	root := t.TempDir()
	sb, errs := New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	defer sb.Close()
	p, err := sb.Resolve(filepath.Join(root, "dst"))
	if err != nil {
		t.Fatal(err)
	}
	made := p.TempSibling()
	if err := made.Mkdir(0o755); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(p.Abs, 0o755)
	h, err := p.Remover()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Aside(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{".dst.fsmcp-0123.tmp", ".dst.fsmcp-0123456789ab.tmpx", ".dst2.fsmcp-0123456789ab.tmp", "dst.fsmcp-0123456789ab.tmp", ".ds.fsmcp-0123456789ab.tmp"} {
		os.WriteFile(filepath.Join(root, n), nil, 0o644)
	}
	got, err := p.TempSiblings()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Dir().Abs != p.Dir().Abs {
		var names []string
		for _, q := range got {
			names = append(names, q.Abs)
		}
		t.Fatalf("TempSiblings of %s: %q (want the TempSibling and the Aside)", p.Abs, names)
	}
}
