package sandbox

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWriteFileKeepsXattrs: a file written over (an edit, a whole write)
// is a new inode; it keeps the old one's extended attributes, as it keeps
// its mode (an edit used to drop a file's ACLs and user attributes).
func TestWriteFileKeepsXattrs(t *testing.T) {
	f := newFixture(t)
	name := filepath.Join(f.root, "a.txt")
	if err := unix.Setxattr(name, "user.k", []byte("v"), 0); err != nil {
		t.Skipf("SKIPPED: no user extended attributes here: %v", err)
	}
	if err := f.sb.mustResolve(t, "a.txt").WriteFile([]byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := make([]byte, 16)
	n, err := unix.Getxattr(name, "user.k", v)
	if err != nil || string(v[:n]) != "v" {
		t.Fatalf("after the write user.k is %q (%v), want \"v\"", v[:max(n, 0)], err)
	}
}
