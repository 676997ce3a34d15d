package fsmcp_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// A move onto another file system inside the root falls back to copy and
// delete. It needs to mount a tmpfs, so it runs as root only.
func TestMoveAcrossDevices(t *testing.T) {
	e := testenv.New(t)
	mnt := e.Path("root/mnt")
	e.Mkdir("root/mnt")
	if err := syscall.Mount("fsmcp-test", mnt, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("SKIPPED: cannot mount a tmpfs (%v); run as root to test cross-device moves", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	mt := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	os.Chtimes(e.Path("root/sub/b.txt"), mt, mt)
	os.Chmod(e.Path("root/sub/b.txt"), 0o604)
	e.OK("fs_move", map[string]any{"source": filepath.Join(e.Root, "sub"), "destination": filepath.Join(mnt, "sub")})
	if e.Exists("root/sub") || e.Read("root/mnt/sub/b.txt") != "bee\n" {
		t.Fatalf("directory not moved across devices")
	}
	fi, _ := os.Stat(e.Path("root/mnt/sub/b.txt"))
	if !fi.ModTime().Equal(mt) || fi.Mode().Perm() != 0o604 {
		t.Errorf("cross-device move lost mtime or mode: %v %v", fi.ModTime(), fi.Mode())
	}
	e.Write("root/mnt/a.txt", "old")
	e.Fails("fs_move", map[string]any{"source": filepath.Join(e.Root, "a.txt"), "destination": filepath.Join(mnt, "a.txt")}, "already exists")
	e.OK("fs_move", map[string]any{"source": filepath.Join(e.Root, "a.txt"), "destination": filepath.Join(mnt, "a.txt"), "overwrite": true})
	if e.Exists("root/a.txt") || e.Read("root/mnt/a.txt") != "hello\n" {
		t.Errorf("file not moved across devices with overwrite")
	}
	testenv.Leftovers(t, e.Root)
}

// A copy into itself through a symlink is refused, not an endless copy.
