package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/fallback"
)

// TestWritesThroughUnwatchedLinksSeen: once the watcher follows the tree,
// hard links made from outside the root, or from a directory the walk
// leaves out, and written through (appended, rewritten to the same size
// with the times put back) reach no directory watch; each file's own
// watch sees them, and the next search finds them. With no file watch to
// be had (the budget spent), every file is stat'ed instead, and the
// answers are the same.
func TestWritesThroughUnwatchedLinksSeen(t *testing.T) {
	for _, budget := range []int{-1, 0} {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			root := gitRoot(t)
			files := map[string]string{".gitignore": "left/\n", "left/keep.txt": "x\n"}
			for i := range 30 {
				files[fmt.Sprintf("a%d/b%d/f%d.txt", i%3, i%4, i)] = "nothing here\n"
			}
			writeTree(t, root, files)
			settled()
			outside := t.TempDir()
			ref := backend.Searcher(fallback.New())
			s, err := New(ref, fallback.New(), Options{Mode: "on", Roots: []string{root}, CacheDir: t.TempDir(), Settle: testSettle, MaxShare: 1})
			if err != nil {
				t.Fatal(err)
			}
			if budget >= 0 {
				dirsOnly(t, s, root) // no file watch
			}
			s.Start(context.Background())
			s.Wait()
			t.Cleanup(func() { s.Close() })
			if !pruning(s) {
				t.Fatal("the watcher is not following the tree")
			}
			if budget == 0 && len(s.roots[0].prune.Load().external) == 0 {
				t.Fatal("without file watches no file is stat'ed")
			}
			check := func(step string) {
				t.Helper()
				q := backend.GrepQuery{Pattern: "NEEDLE", Mode: backend.FilesWithMatches, Paths: []string{root}}
				if want, got := result(t, ref, q), result(t, s, q); got != want {
					t.Fatalf("after %s:\nwant %s\ngot  %s", step, want, got)
				}
			}
			check("the build")
			link := func(rel, at string) string {
				t.Helper()
				if err := os.Link(filepath.Join(root, rel), at); err != nil {
					t.Fatal(err)
				}
				return at
			}
			hl := link("a1/b1/f1.txt", filepath.Join(outside, "hl"))
			f, err := os.OpenFile(hl, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("NEEDLE appended outside\n")
			f.Close()
			check("an append through a link from outside")
			target := filepath.Join(root, "a2/b2/f2.txt")
			fi, _ := os.Stat(target)
			hl = link("a2/b2/f2.txt", filepath.Join(outside, "hl2"))
			f, err = os.OpenFile(hl, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt([]byte("NEEDLE here"), 0) // "nothing here" is as long
			f.Close()
			os.Chtimes(hl, fi.ModTime(), fi.ModTime())
			check("a same-size write through a link from outside, times put back")
			hl = link("a0/b3/f3.txt", filepath.Join(root, "left", "hl3"))
			os.WriteFile(hl, []byte("NEEDLE through an ignored directory\n"), 0o644)
			check("a write through a link in a directory the walk leaves out")
		})
	}
}
