package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/journal"
)

// TestCopiedTreeComesBackWhole deletes a tree the journal cannot move
// into itself (the journal on /dev/shm, another file system) and so
// copies: the undo brings back each file's and directory's extended
// attributes, a pipe's and a link's own times, and a socket.
func TestCopiedTreeComesBackWhole(t *testing.T) {
	w := newWorld(t, 1, 1<<30)
	shm, err := os.MkdirTemp("/dev/shm", "fsmcp-journal-")
	if err != nil {
		t.Skipf("SKIPPED: no /dev/shm to put the journal on another file system (%v)", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	var a, b syscall.Stat_t
	if syscall.Stat(shm, &a) != nil || syscall.Stat(w.roots[0], &b) != nil || a.Dev == b.Dev {
		t.Skip("SKIPPED: /dev/shm is on the tree's file system here")
	}
	w.j = journal.New(journal.Config{Dir: filepath.Join(shm, "state"), MaxSize: 1 << 30}, files.JournalOps{})
	tree := filepath.Join(w.roots[0], "tree")
	os.MkdirAll(filepath.Join(tree, "sub"), 0o755)
	os.WriteFile(filepath.Join(tree, "sub", "f.txt"), []byte("kept\n"), 0o640)
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := unix.Setxattr(filepath.Join(tree, "sub", "f.txt"), "user.k", []byte("v"), 0); err != nil {
		t.Skipf("SKIPPED: no user extended attributes here (%v)", err)
	}
	unix.Setxattr(filepath.Join(tree, "sub"), "user.d", []byte("dir"), 0)
	unix.Mkfifo(filepath.Join(tree, "pipe"), 0o600)
	os.Symlink("sub/f.txt", filepath.Join(tree, "link"))
	unix.Mknod(filepath.Join(tree, "sock"), unix.S_IFSOCK|0o640, 0)
	ts := []unix.Timespec{unix.NsecToTimespec(old.UnixNano()), unix.NsecToTimespec(old.UnixNano())}
	for _, n := range []string{"pipe", "link", "sock", "sub/f.txt", "sub"} {
		unix.UtimesNanoAt(unix.AT_FDCWD, filepath.Join(tree, n), ts, unix.AT_SYMLINK_NOFOLLOW)
	}
	before := testenv.TreeState(w.roots[0], nil)

	w.step("fs_delete", func(ctx context.Context) error {
		p := w.path("tree")
		taken, err := journal.Take(ctx, p, "deleted")
		if err != nil || taken {
			t.Fatalf("Take: taken %v, %v (want a copy: the journal is on another file system)", taken, err)
		}
		return p.RemoveAll()
	})
	if _, err := os.Lstat(tree); err == nil {
		t.Fatal("the tree is still there")
	}
	r := w.undo(0, journal.Select{Last: 1}, journal.ForUndo)
	if len(r.Skipped) > 0 || len(r.Restored) != 1 {
		t.Fatalf("undo: %s", r)
	}
	if d := testenv.StateDiff(before, testenv.TreeState(w.roots[0], nil)); d != "" {
		t.Fatalf("after the undo:\n%s\nundo said: %s", d, r)
	}
}
