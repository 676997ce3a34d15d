//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestTempAfterParentSwap swaps the parent of a file being written for a
// link out of the root: the commit must not land outside, and nothing may
// be left in the moved directory or outside.
func TestTempAfterParentSwap(t *testing.T) {
	f := newFixture(t)
	tf, err := f.sb.mustResolve(t, "sub/new.txt").CreateTemp(0o644)
	must(t, err)
	if _, err := tf.File().WriteString("data"); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(f.root, "moved")
	must(t, os.Rename(filepath.Join(f.root, "sub"), moved))
	must(t, os.Symlink(f.outside, filepath.Join(f.root, "sub")))
	tf.Discard()
	if ents, _ := os.ReadDir(moved); len(ents) != 0 {
		t.Fatalf("left in the moved directory: %v", ents)
	}
	if ents, _ := os.ReadDir(f.outside); len(ents) != 1 {
		t.Fatalf("outside changed: %v", ents)
	}

	// A commit after the swap lands in the directory that was opened,
	// never outside.
	must(t, os.Remove(filepath.Join(f.root, "sub")))
	must(t, os.Rename(moved, filepath.Join(f.root, "sub")))
	tf, err = f.sb.mustResolve(t, "sub/new.txt").CreateTemp(0o644)
	must(t, err)
	must(t, os.Rename(filepath.Join(f.root, "sub"), moved))
	must(t, os.Symlink(f.outside, filepath.Join(f.root, "sub")))
	must(t, tf.Commit(false))
	if ents, _ := os.ReadDir(f.outside); len(ents) != 1 {
		t.Fatalf("outside changed: %v", ents)
	}
	if ents, _ := os.ReadDir(moved); len(ents) != 1 || ents[0].Name() != "new.txt" {
		t.Fatalf("the moved directory holds %v, want new.txt", ents)
	}
}

// TestWriteFileLeavesNoTemp writes and overwrites: only the file remains.
func TestWriteFileLeavesNoTemp(t *testing.T) {
	f := newFixture(t)
	p := f.sb.mustResolve(t, "sub/w.txt")
	must(t, p.WriteFile([]byte("one"), 0o644))
	must(t, p.WriteFile([]byte("two"), 0o644))
	ents, _ := os.ReadDir(filepath.Join(f.root, "sub"))
	if len(ents) != 1 {
		t.Fatalf("sub holds %v", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "sub", "w.txt")); string(b) != "two" {
		t.Fatalf("content %q", b)
	}
}

// TestTempParentFIFODoesNotBlock: a FIFO where the parent directory
// should be is refused at once.
func TestTempParentFIFODoesNotBlock(t *testing.T) {
	f := newFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.root, "pipe"), 0o644); err != nil {
		t.Skip("SKIPPED: no FIFO here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.sb.mustResolve(t, "pipe/x").CreateTemp(0o644)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("CreateTemp below a FIFO succeeded")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("CreateTemp below a FIFO blocked")
	}
}
