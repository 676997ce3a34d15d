//go:build unix

package files

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCopyDropsSetuidUnlessOwnerKept: a copy belongs to fsmcp's user, so
// copying another user's set-uid/set-gid file (as root) gives a file
// without those bits; a set-uid file of fsmcp's own user keeps them.
func TestCopyDropsSetuidUnlessOwnerKept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPED: needs root to own a file as another user")
	}
	root, _, sb := trashTree(t)
	theirs, mine := filepath.Join(root, "theirs"), filepath.Join(root, "mine")
	for _, p := range []string{theirs, mine} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(theirs, 1234, 1234); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{theirs, mine} {
		if err := os.Chmod(p, 0o755|fs.ModeSetuid|fs.ModeSetgid); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		src  string
		want fs.FileMode
	}{
		{theirs, 0},
		{mine, fs.ModeSetuid | fs.ModeSetgid},
	} {
		src, _ := sb.Resolve(c.src)
		dst, _ := sb.Resolve(c.src + "-copy")
		if err := Copy(context.Background(), src, dst, false); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(c.src + "-copy")
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode() & (fs.ModeSetuid | fs.ModeSetgid); got != c.want || fi.Mode().Perm() != 0o755 {
			t.Errorf("copy of %s: mode %v, want special bits %v and 0755", filepath.Base(c.src), fi.Mode(), c.want)
		}
	}
	// In a tree too.
	os.MkdirAll(filepath.Join(root, "tree"), 0o755)
	os.Rename(theirs, filepath.Join(root, "tree", "theirs"))
	src, _ := sb.Resolve(filepath.Join(root, "tree"))
	dst, _ := sb.Resolve(filepath.Join(root, "tree-copy"))
	if err := Copy(context.Background(), src, dst, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "tree-copy", "theirs")); err != nil || fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
		t.Errorf("tree copy of another user's set-uid file: %v %v", fi.Mode(), err)
	}
}
