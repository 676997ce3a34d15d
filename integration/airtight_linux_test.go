package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
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
// writes there. Bounded to 2 s or 300 calls per tool (times FSMCP_REDTEAM).
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
		deadline := time.Now().Add(time.Duration(attack(t)) * 2 * time.Second)
		n, ok := 0, 0
		for ; n < 300*attack(t) && time.Now().Before(deadline); n++ {
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

// TestRaceSwappedParentOfSearchedFileNeverLeaks: fs_grep on a file path
// (and fs_watch on a directory) whose parent is swapped with a link out
// thousands of times a second never answers with a byte or a name from
// outside, in both backends. Bounded to 2 s or 400 calls per tool (times
// FSMCP_REDTEAM).
func TestRaceSwappedParentOfSearchedFileNeverLeaks(t *testing.T) {
	tr := newTree(t)
	sw, swLink := tr.path("sw"), tr.path("swlink")
	write(t, filepath.Join(sw, "f.txt"), "inside "+needle+"\n")
	write(t, filepath.Join(sw, "d", "g.txt"), "inside "+needle+"\n")
	far := filepath.Join(tr.base, "far")
	write(t, filepath.Join(far, "f.txt"), "zzleak "+needle+"\n")
	write(t, filepath.Join(far, "d", "g.txt"), "zzleak "+needle+"\n")
	symlink(t, far, swLink)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			args := []string{"--timeout", "10s", tr.root}
			if m.name == "rg" {
				args = append([]string{"--search-backend", "rg"}, args...)
			}
			cs := connectStdio(t, m, args...)
			for _, c := range []map[string]any{
				{"pattern": "zzleak|" + needle, "path": filepath.Join(sw, "f.txt"), "output_mode": "content"},
				{"pattern": "zzleak|" + needle, "path": filepath.Join(sw, "d", "g.txt"), "output_mode": "content"},
				{"pattern": "zzleak|" + needle, "path": filepath.Join(sw, "d"), "output_mode": "content"},
			} {
				stop := swapper(t, sw, swLink)
				deadline := time.Now().Add(time.Duration(attack(t)) * 2 * time.Second)
				n := 0
				for ; n < 400*attack(t) && time.Now().Before(deadline); n++ {
					if out, _ := call(t, cs, "fs_grep", c); strings.Contains(out, "zzleak") {
						t.Fatalf("fs_grep %v leaked:\n%s", c, out)
					}
				}
				t.Logf("fs_grep %v: %d calls, %d swaps", c["path"], n, stop())
				unswap(sw, swLink)
			}
			// fs_watch of the swapped directory's subdirectory: files
			// made outside meanwhile never show up in an event.
			stop := swapper(t, sw, swLink)
			deadline := time.Now().Add(time.Duration(attack(t)) * 2 * time.Second)
			var ids []string
			for n := 0; n < 60*attack(t) && time.Now().Before(deadline); n++ {
				out, _ := call(t, cs, "fs_watch", map[string]any{"path": filepath.Join(sw, "d")})
				if strings.Contains(out, "zzleak") {
					t.Fatalf("fs_watch start leaked: %s", out)
				}
				if m := watcherID.FindStringSubmatch(out); m != nil {
					ids = append(ids, m[1])
				}
				write(t, filepath.Join(far, "d", fmt.Sprintf("zzleak-new%d.txt", n)), "x")
				for _, id := range ids {
					if out, _ := call(t, cs, "fs_watch", map[string]any{"action": "poll", "watcher_id": id}); strings.Contains(out, "zzleak") {
						t.Fatalf("fs_watch poll leaked:\n%s", out)
					}
				}
				if len(ids) >= 8 { // the per-session cap
					call(t, cs, "fs_watch", map[string]any{"action": "stop", "watcher_id": ids[0]})
					ids = ids[1:]
				}
			}
			t.Logf("fs_watch: %d watching at the end, %d swaps", len(ids), stop())
			unswap(sw, swLink)
		})
	}
}

// TestRaceMetaRootSearchedByRgStaysInIt: a search scoped by
// _meta.allowed_dirs to a directory inside a root, while that directory is
// swapped with a link out, never shows an outside byte, in both backends:
// rg's Landlock rules are built on the roots' open directories, not on
// names resolved again when rg starts. Bounded to 2 s or 400 calls (times
// FSMCP_REDTEAM).
func TestRaceMetaRootSearchedByRgStaysInIt(t *testing.T) {
	tr := newTree(t)
	sw, swLink := tr.path("sw"), tr.path("swlink")
	write(t, filepath.Join(sw, "f.txt"), "inside "+needle+"\n")
	far := filepath.Join(tr.base, "far")
	write(t, filepath.Join(far, "f.txt"), "zzleak "+needle+"\n")
	symlink(t, far, swLink)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			args := []string{"--timeout", "10s", tr.root}
			if m.name == "rg" {
				args = append([]string{"--search-backend", "rg"}, args...)
			}
			cs := connectStdio(t, m, args...)
			meta := map[string]any{"allowed_dirs": []any{sw}}
			stop := swapper(t, sw, swLink)
			deadline := time.Now().Add(time.Duration(attack(t)) * 2 * time.Second)
			n, ok := 0, 0
			for ; n < 400*attack(t) && time.Now().Before(deadline); n++ {
				res, err := callRaw(cs, "fs_grep", map[string]any{"pattern": "zzleak|" + needle, "path": sw, "output_mode": "content"}, meta)
				if err != nil {
					t.Fatal(err)
				}
				out := testenv.Text(res)
				if strings.Contains(out, "zzleak") {
					t.Fatalf("fs_grep leaked:\n%s", out)
				}
				if strings.Contains(out, "inside") {
					ok++
				}
			}
			t.Logf("%d calls, %d found the inside file, %d swaps", n, ok, stop())
			unswap(sw, swLink)
		})
	}
}

// TestChmodItemsRefusesHardLinkToOutside: chmod_items and chown_items on
// a hard link in the root to a file outside are refused, and the outside
// file keeps its mode.
func TestChmodItemsRefusesHardLinkToOutside(t *testing.T) {
	attack(t)
	tr := newTree(t)
	secret := filepath.Join(tr.outside, "secret.txt")
	os.Chmod(secret, 0o600)
	if err := os.Link(secret, tr.path("hard")); err != nil {
		t.Skip("SKIPPED: no hard links here:", err)
	}
	cs := connectStdio(t, modes(t)[0], "--profile", "filesystem-mcp", tr.root)
	if out := mustCall(t, cs, "chmod_items", map[string]any{"paths": []any{"hard"}, "mode": "777"}); !strings.Contains(out, `"success": false`) || !strings.Contains(out, "hard links") {
		t.Errorf("chmod_items of a hard link: %s", out)
	}
	if out := mustCall(t, cs, "chown_items", map[string]any{"paths": []any{"hard"}, "uid": os.Getuid(), "gid": os.Getgid()}); !strings.Contains(out, `"success": false`) {
		t.Errorf("chown_items of a hard link: %s", out)
	}
	if fi, _ := os.Stat(secret); fi.Mode().Perm() != 0o600 {
		t.Errorf("the outside file's mode changed: %v", fi.Mode())
	}
}
