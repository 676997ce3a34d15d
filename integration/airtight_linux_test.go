package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/internal/testenv"
)

// unswap puts the directory back in place after a swapper stopped.
func unswap(dir, link string) {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
	}
}

// TestRaceMetaDirUnderARootStaysInIt: over stdio, where _meta.allowed_dirs
// adds roots, an entry naming a directory inside a root that is swapped
// with a link out thousands of times a second never becomes a root
// outside: fs_read never answers with the outside file, fs_write never
// writes there. Bounded to 2 s or 300 calls per tool.
func TestRaceMetaDirUnderARootStaysInIt(t *testing.T) {
	tr := newTree(t)
	sw, swLink := tr.path("sw"), tr.path("swlink")
	write(t, filepath.Join(sw, "f.txt"), "inside\n")
	far := filepath.Join(tr.base, "far")
	write(t, filepath.Join(far, "f.txt"), "zzleak\n")
	symlink(t, far, swLink)
	m := modes(t)[0]
	cs := connectStdio(t, m, tr.root)
	meta := map[string]any{"allowed_dirs": []any{sw}}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"fs_read", map[string]any{"file_path": filepath.Join(sw, "f.txt")}},
		{"fs_write", map[string]any{"file_path": filepath.Join(sw, "w.txt"), "content": "written"}},
	} {
		stop := swapper(t, sw, swLink)
		deadline := time.Now().Add(2 * time.Second)
		n, ok := 0, 0
		for ; n < 300 && time.Now().Before(deadline); n++ {
			res, err := callRaw(cs, c.tool, c.args, meta)
			if err != nil {
				t.Fatalf("%s: %v", c.tool, err)
			}
			if out := testenv.Text(res); strings.Contains(out, "zzleak") {
				t.Fatalf("%s leaked the outside file: %s", c.tool, out)
			}
			if !res.IsError {
				ok++
			}
		}
		t.Logf("%s: %d calls (%d answered), %d swaps", c.tool, n, ok, stop())
		if ok == 0 {
			t.Errorf("%s never answered: the test attacks nothing", c.tool)
		}
		unswap(sw, swLink)
		if _, err := os.Lstat(filepath.Join(far, "w.txt")); err == nil {
			t.Fatalf("%s wrote outside the roots", c.tool)
		}
	}
}
