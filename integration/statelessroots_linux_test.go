package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRaceStatelessRootsSwappedDirNeverLeaks: the roots a 2026-07-28
// client answers with are opened anew for each call, and contained as any
// root is: while a directory inside the client's root is swapped with a
// symlink out thousands of times a second, fs_grep, fs_list and fs_read
// through that client never answer with a name or a byte from outside.
func TestRaceStatelessRootsSwappedDirNeverLeaks(t *testing.T) {
	tr := newTree(t)
	sw, swLink := tr.path("sw"), tr.path("swlink")
	write(t, filepath.Join(sw, "inside.txt"), "inside "+needle+"\n")
	far := filepath.Join(tr.base, "far")
	write(t, filepath.Join(far, "inside.txt"), "zzleak "+needle+"\n")
	write(t, filepath.Join(far, "zzleak.txt"), "zzleak "+needle+"\n")
	symlink(t, far, swLink)
	url, _ := startHTTP(t, modes(t)[0], "--shell", "off", "--timeout", "10s")
	cs := connectStatelessRoots(t, url, false, nil, fileURI(tr.root))
	perTool := time.Duration(attack(t)) * time.Second
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"fs_grep", map[string]any{"pattern": "zzleak|" + needle, "output_mode": "content"}},
		{"fs_list", map[string]any{"path": tr.root, "depth": 3}},
		{"fs_read", map[string]any{"file_path": filepath.Join(sw, "inside.txt")}},
	} {
		stop := swapper(t, sw, swLink)
		n := 0
		for deadline := time.Now().Add(perTool); n < 300*attack(t) && time.Now().Before(deadline); n++ {
			if out, _ := call(t, cs, c.tool, c.args); strings.Contains(out, "zzleak") {
				t.Errorf("%s %v leaked outside content:\n%s", c.tool, c.args, out)
				break
			}
		}
		t.Logf("%s: %d calls, %d swaps", c.tool, n, stop())
		if fi, err := os.Lstat(sw); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			unix.Renameat2(unix.AT_FDCWD, sw, unix.AT_FDCWD, swLink, unix.RENAME_EXCHANGE)
		}
	}
	tr.assertOutsideUntouched(t)
}
