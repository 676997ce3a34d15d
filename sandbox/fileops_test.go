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
