package index

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/native"
)

// TestDirectoryWatchesCountAgainstTheBudget: the directory watches a
// check reserves leave that many fewer file watches, so one searcher's
// watches stay within its share and a second server on the same tree
// still gets its directory watches; reserving more than the share is
// refused; closing the watcher gives every watch back.
func TestDirectoryWatchesCountAgainstTheBudget(t *testing.T) {
	b := &watchBudget{max: 10}
	w, err := newWatcher(b)
	if err != nil {
		t.Skip("no inotify:", err)
	}
	if w.reserveDirs(11) {
		t.Fatal("11 directory watches were reserved in a share of 10")
	}
	if !w.reserveDirs(8) {
		t.Fatal("8 directory watches of 10 were not reserved")
	}
	took := 0
	for range 5 {
		if b.take(1) {
			took++
		}
	}
	if took != 2 {
		t.Fatalf("with 8 of 10 watches reserved for directories, %d file watches were taken, want 2", took)
	}
	b.give(int64(took))
	w.close()
	if n := b.used.Load(); n != 0 {
		t.Fatalf("closing the watcher left %d watches taken", n)
	}
}

// emptyDirsTree is a root with a few files and n empty directories,
// which hold no indexed file.
func emptyDirsTree(t *testing.T, n int) string {
	t.Helper()
	root := gitRoot(t)
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("src/d%d/f%d.c", i%3, i)] = "NEEDLE here\n"
	}
	writeTree(t, root, files)
	for i := range n {
		if err := os.MkdirAll(filepath.Join(root, "empty", fmt.Sprintf("e%d/e%d", i%50, i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settled()
	return root
}

// TestEmptyDirectoriesStayWithinTheShare: every watch a check adds comes
// out of the searcher's share, the watches of directories that hold no
// indexed file too. Only the directories holding files were counted, so a
// tree of empty directories took the user's whole fs.inotify budget. A
// tree whose directories do not fit is not followed at all, and holds no
// watch; one whose directories fit is followed within the share, files
// getting what is left.
func TestEmptyDirectoriesStayWithinTheShare(t *testing.T) {
	root := emptyDirsTree(t, 400)
	dirs := countDirs(t, root)
	for _, c := range []struct {
		name   string
		share  int64
		follow bool
	}{
		{"fewer watches than directories", dirs / 2, false},
		{"room for the directories and a few files", dirs + 3, true},
		{"room for all", dirs + 100, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(backend.Searcher(native.New()), native.New(), Options{Mode: "on", Roots: []string{root}, CacheDir: t.TempDir(), Settle: testSettle, MaxShare: 1, MaxWatches: c.share})
			if err != nil {
				t.Fatal(err)
			}
			s.Start(context.Background())
			s.Wait()
			t.Cleanup(func() { s.Close() })
			if pruning(s) != c.follow {
				t.Fatalf("following the tree: %v, want %v", pruning(s), c.follow)
			}
			if held := s.watches.used.Load(); held > c.share {
				t.Fatalf("%d watches held, over the share of %d", held, c.share)
			} else if !c.follow && held != 0 {
				t.Fatalf("%d watches held by a root that is not followed", held)
			}
			if c.follow {
				w := s.roots[0].prune.Load().w
				w.mu.Lock()
				n := int64(len(w.wds) + len(w.files))
				w.mu.Unlock()
				if n != s.watches.used.Load() {
					t.Fatalf("the kernel holds %d watches, the budget counts %d", n, s.watches.used.Load())
				}
			}
			q := backend.GrepQuery{Pattern: "NEEDLE", Mode: backend.FilesWithMatches, Paths: []string{root}}
			if want, got := result(t, native.New(), q), result(t, s, q); got != want {
				t.Fatalf("want %s\ngot  %s", want, got)
			}
		})
	}
}

// countDirs counts the directories a check of root watches: all but
// .git's.
func countDirs(t *testing.T, root string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// dirsOnly gives s a share with room for root's directory watches and no
// file watch.
func dirsOnly(t *testing.T, s *Searcher, root string) {
	t.Helper()
	s.watches.max = countDirs(t, root)
}
