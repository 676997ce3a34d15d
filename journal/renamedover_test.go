//go:build unix

package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsmcp/fsmcp/journal"
)

// TestFileRenamedOverComesBackAsItWas: a small file a rename replaces
// (sed -i, an editor's save) comes back with the content it had then,
// even when a process that had it open writes to the old inode after
// the rename. It was kept by a hard link, which that late write changed
// (TestTwoServersCommandsUndone: one server's append loop held f.txt
// open while the other's sed renamed over it, and the undo put back
// f.txt with the late append in it).
func TestFileRenamedOverComesBackAsItWas(t *testing.T) {
	w := newWorld(t, 1, 1<<30)
	r := w.roots[0]
	write(t, filepath.Join(r, "f.txt"), "original\n", 0o644, old)
	write(t, filepath.Join(r, "tmp"), "new\n", 0o644, old)
	os.Remove(filepath.Join(r, "tmp"))
	held, err := os.OpenFile(filepath.Join(r, "f.txt"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	write(t, filepath.Join(r, "tmp"), "new\n", 0o644, old)
	w.step("fs_bash", func(ctx context.Context) error {
		if err := journal.Moved(ctx, w.path("tmp"), w.path("f.txt")); err != nil {
			return err
		}
		return os.Rename(filepath.Join(r, "tmp"), filepath.Join(r, "f.txt"))
	})
	held.WriteString("late\n") // into the inode the rename took out of the tree
	rep := w.undo(0, journal.Select{Last: 1}, journal.ForUndo)
	got, _ := os.ReadFile(filepath.Join(r, "f.txt"))
	if string(got) != "original\n" {
		t.Fatalf("f.txt after the undo: %q\nundo said: %s", got, rep)
	}
}
