package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexSeesWritesThroughLinksFromOutside: once the index follows the
// tree, another process makes a hard link to a file of the root from
// outside it (or from a directory the walk leaves out, which no watch
// covers) and writes through that link: an append, and a same-size write
// with the times put back. Neither reaches a directory watch, yet the
// very next fs_grep finds each file, as rg does, with rg on PATH and
// without.
func TestIndexSeesWritesThroughLinksFromOutside(t *testing.T) {
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			files := map[string]string{".gitignore": "ignored/\n", ".git/HEAD": "ref: refs/heads/main\n", "ignored/keep.txt": "x\n"}
			for i := range 30 {
				files[fmt.Sprintf("d%d/t%d.txt", i%3, i)] = fmt.Sprintf("plain text %d\n", i)
			}
			root := settledTree(t, files)
			outside, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			srv := startIndexed(t, m, t.TempDir(), "--read-only", root)
			if !strings.Contains(srv.log.String(), "index: following changes") {
				t.Skip("SKIPPED: the index does not follow changes here (see the log); nothing is pruned")
			}
			grep := func(pattern string) string {
				return mustCall(t, srv.cs, "fs_grep", map[string]any{"pattern": pattern, "path": root})
			}
			// Warm the pruning: searches that narrow to nothing.
			for _, p := range []string{"APPENDED_OUTSIDE", "SAMESIZE_OUTSIDE", "FROM_IGNORED"} {
				if out := grep(p); !strings.Contains(out, "No matches") {
					t.Fatalf("before any change, fs_grep %s: %q", p, out)
				}
			}

			// An append through a link made outside after the check.
			hl := filepath.Join(outside, "hl")
			if err := os.Link(filepath.Join(root, "d1/t4.txt"), hl); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(hl, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("APPENDED_OUTSIDE\n")
			f.Close()
			if out := grep("APPENDED_OUTSIDE"); !strings.Contains(out, "d1/t4.txt") {
				t.Errorf("an append through a link from outside: fs_grep answered %q", out)
			}

			// A same-size write through another such link, its times put back.
			target := filepath.Join(root, "d2/t5.txt")
			before, err := os.Stat(target)
			if err != nil {
				t.Fatal(err)
			}
			hl2 := filepath.Join(outside, "hl2")
			if err := os.Link(target, hl2); err != nil {
				t.Fatal(err)
			}
			same := "SAMESIZE_OUTSIDE\n"[:before.Size()]
			if err := os.WriteFile(hl2, []byte(same), 0o644); err != nil { // truncates and writes: same inode
				t.Fatal(err)
			}
			os.Chtimes(hl2, before.ModTime(), before.ModTime())
			if out := grep("SAMESIZE"); !strings.Contains(out, "d2/t5.txt") {
				t.Errorf("a same-size write through a link from outside, times put back: fs_grep answered %q", out)
			}

			// A link from a directory the walk leaves out (ignored), inside the root.
			hl3 := filepath.Join(root, "ignored", "hl3")
			if err := os.Link(filepath.Join(root, "d0/t6.txt"), hl3); err != nil {
				t.Fatal(err)
			}
			f, err = os.OpenFile(hl3, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("FROM_IGNORED\n")
			f.Close()
			if out := grep("FROM_IGNORED"); !strings.Contains(out, "d0/t6.txt") {
				t.Errorf("an append through a link in an ignored directory: fs_grep answered %q", out)
			}
		})
	}
}
