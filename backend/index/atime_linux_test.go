package index

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend/native"
)

// TestBuildLeavesAccessTimes: building an index lists every directory and
// reads every settled file, and leaves their access times as they were
// (O_NOATIME: the owner's files, as here) where a plain read moves a
// day-old atime to now (relatime). Skipped where reading moves nothing.
func TestBuildLeavesAccessTimes(t *testing.T) {
	root, control := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "alpha NEEDLE\n", "d/b.txt": "beta\n", "d/e/c.txt": "gamma\n"})
	writeTree(t, control, map[string]string{"c.txt": "control\n"})
	past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	var paths []string
	filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		paths = append(paths, p)
		return err
	})
	for _, p := range append(paths, control, filepath.Join(control, "c.txt")) {
		if err := os.Chtimes(p, past, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	settled()
	os.ReadDir(control)
	os.ReadFile(filepath.Join(control, "c.txt"))
	for _, p := range []string{control, filepath.Join(control, "c.txt")} {
		if atime(t, p).Equal(past) {
			t.Skipf("SKIPPED: reading %s left its access time (a noatime mount?): nothing to check here", p)
		}
	}

	s := newIndexed(t, native.New(), root)
	if ix := s.roots[0].ix.Load(); ix == nil || ix.ncontent == 0 {
		t.Fatal("the build indexed no content: nothing was read")
	}
	for _, p := range paths {
		if got := atime(t, p); !got.Equal(past) {
			t.Errorf("%s: access time %s after the build, want %s", p, got.UTC(), past)
		}
	}
}

func atime(t *testing.T, p string) time.Time {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return time.Unix(st.Atim.Sec, st.Atim.Nsec)
}
