package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/native"
)

// TestWritesThroughUnwatchedLinksSeen: once the watcher follows the tree,
// hard links made from outside the root, or from a directory the walk
// leaves out, and written through (appended, rewritten to the same size
// with the times put back) reach no directory watch.
//
//   - Where every search stats the files without a watch of their own
//     (CensusBound < 0), with file watches to be had and without, the
//     next search finds each write.
//   - Under the census, the first pass that starts after the write finds
//     it, and every search after that pass does (census: a bound of an
//     hour, so no search stats anything itself, and one pass made by
//     hand after each write); a file that had a link from outside when
//     the tree was checked has a watch of its own, and a write through
//     that link is seen by the very next search.
//   - The bound itself: a search that starts more than CensusBound after
//     the write finds it, whether the census or the search's own stats
//     saw it first.
func TestWritesThroughUnwatchedLinksSeen(t *testing.T) {
	for _, c := range []struct {
		name   string
		dirs   bool // a budget with room for the directories only
		bound  time.Duration
		byHand bool // a census pass after each write, by hand
	}{
		{"every search stats", false, -1, false},
		{"every search stats, no file watch", true, -1, false},
		{"census", false, time.Hour, true},
		{"census, no file watch", true, time.Hour, true},
		{"the bound", false, 300 * time.Millisecond, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := gitRoot(t)
			files := map[string]string{".gitignore": "left/\n", "left/keep.txt": "x\n"}
			for i := range 30 {
				files[fmt.Sprintf("a%d/b%d/f%d.txt", i%3, i%4, i)] = "nothing here\n"
			}
			writeTree(t, root, files)
			outside := t.TempDir()
			// A link from outside before the check: that file gets a watch.
			early := filepath.Join(outside, "early")
			if err := os.Link(filepath.Join(root, "a0/b0/f0.txt"), early); err != nil {
				t.Fatal(err)
			}
			settled()
			ref := backend.Searcher(native.New())
			s, err := New(ref, native.New(), Options{Mode: "on", Roots: []string{root}, CacheDir: t.TempDir(), Settle: testSettle, MaxShare: 1, CensusBound: c.bound})
			if err != nil {
				t.Fatal(err)
			}
			if c.dirs {
				dirsOnly(t, s, root) // no file watch
			}
			s.Start(context.Background())
			s.Wait()
			t.Cleanup(func() { s.Close() })
			if !pruning(s) {
				t.Fatal("the watcher is not following the tree")
			}
			ps := s.roots[0].prune.Load()
			if len(ps.externalIDs) == 0 {
				t.Fatal("no file is left to the census or the sweep: the test proves nothing")
			}
			early0, _ := ps.ix.lookup("a0/b0/f0.txt")
			if !c.dirs && has(ps.externalBits, early0) {
				t.Fatal("the file linked from outside before the check has no watch of its own")
			}
			check := func(step string) {
				t.Helper()
				q := backend.GrepQuery{Pattern: "NEEDLE", Mode: backend.FilesWithMatches, Paths: []string{root}}
				if c.byHand {
					cand := s.candidatesFor(q)
					if cand == nil || cand.prune[0] == nil || cand.prune[0].stale != nil {
						t.Fatalf("%s: the search does not trust the census", step)
					}
					cand.settle()
				}
				if want, got := result(t, ref, q), result(t, s, q); got != want {
					t.Fatalf("after %s:\nwant %s\ngot  %s", step, want, got)
				}
			}
			// seen waits as the mode says, then checks.
			seen := func(step string, wrote time.Time) {
				t.Helper()
				switch {
				case c.byHand:
					ps.census.passAll(ps)
				case c.bound > 0:
					time.Sleep(time.Until(wrote.Add(c.bound + time.Millisecond)))
				}
				check(step)
			}
			check("the build")
			if !c.dirs {
				f, err := os.OpenFile(early, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString("NEEDLE through the link made before the check\n")
				f.Close()
				check("an append through a link from outside made before the check (a watch of its own)")
			}
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
			seen("an append through a link from outside", time.Now())
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
			seen("a same-size write through a link from outside, times put back", time.Now())
			hl = link("a0/b3/f3.txt", filepath.Join(root, "left", "hl3"))
			os.WriteFile(hl, []byte("NEEDLE through an ignored directory\n"), 0o644)
			seen("a write through a link in a directory the walk leaves out", time.Now())
		})
	}
}

// TestCensusRunsWhileSearchesCome: the census makes passes by itself
// while searches come (each starting within its bound of the last), so
// a search finds the files without a watch of their own checked
// recently, and trusts them without a stat of its own.
func TestCensusRunsWhileSearchesCome(t *testing.T) {
	root := gitRoot(t)
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%d/f%d.txt", i%5, i)] = "nothing here\n"
	}
	writeTree(t, root, files)
	settled()
	bound := 2 * time.Second
	s, err := New(native.New(), native.New(), Options{Mode: "on", Roots: []string{root}, CacheDir: t.TempDir(), Settle: testSettle, MaxShare: 1, CensusBound: bound})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	s.Wait()
	t.Cleanup(func() { s.Close() })
	if !pruning(s) {
		t.Fatal("the watcher is not following the tree")
	}
	ps := s.roots[0].prune.Load()
	q := backend.GrepQuery{Pattern: "NEEDLE", Mode: backend.FilesWithMatches, Paths: []string{root}}
	deadline := time.Now().Add(time.Minute)
	for ps.census.passes.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the census made %d passes in a minute of searches, every %s", ps.census.passes.Load(), bound/4)
		}
		if c := s.candidatesFor(q); c != nil {
			c.settle()
		}
		time.Sleep(bound / 4)
	}
	hl := filepath.Join(t.TempDir(), "hl")
	if err := os.Link(filepath.Join(root, "d1/f1.txt"), hl); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hl, []byte("NEEDLE written through\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wrote := time.Now().UnixNano()
	for ps.census.at[0].Load() <= wrote {
		if time.Now().After(deadline) {
			t.Fatal("no census pass began after the write")
		}
		if c := s.candidatesFor(q); c != nil {
			c.settle()
		}
		time.Sleep(bound / 4)
	}
	if want, got := result(t, native.New(), q), result(t, s, q); got != want {
		t.Fatalf("after a census pass that began after the write:\nwant %s\ngot  %s", want, got)
	}
}

// TestStaleChunksAreStated: a search stats the files of the census's
// chunks whose last stat is older than the bound, and trusts the others:
// a write through a link made from outside to a file of a stale chunk is
// found at once, one to a file of a fresh chunk after the census's next
// stat of its chunk.
func TestStaleChunksAreStated(t *testing.T) {
	defer func(n int) { censusChunk = n }(censusChunk)
	censusChunk = 8
	root := gitRoot(t)
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%d/f%02d.txt", i/10, i)] = "nothing here\n"
	}
	writeTree(t, root, files)
	settled()
	ref := backend.Searcher(native.New())
	s, err := New(ref, native.New(), Options{Mode: "on", Roots: []string{root}, CacheDir: t.TempDir(), Settle: testSettle, MaxShare: 1, CensusBound: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	s.Wait()
	t.Cleanup(func() { s.Close() })
	if !pruning(s) {
		t.Fatal("the watcher is not following the tree")
	}
	ps := s.roots[0].prune.Load()
	c := ps.census
	if len(c.at) < 4 {
		t.Fatalf("%d chunks of %d files: the test proves nothing", len(c.at), len(c.ids))
	}
	outside := t.TempDir()
	through := func(rel, what string) int {
		t.Helper()
		hl := filepath.Join(outside, filepath.Base(rel))
		if err := os.Link(filepath.Join(root, rel), hl); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(hl, []byte(what+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		id, _ := ps.ix.lookup(rel)
		return c.chunkOf(id)
	}
	q := backend.GrepQuery{Pattern: "NEEDLE", Mode: backend.FilesWithMatches, Paths: []string{root}}
	oldK := through("d0/f01.txt", "NEEDLE in a stale chunk")
	freshK := through("d3/f38.txt", "NEEDLE in a fresh chunk")
	if oldK == freshK {
		t.Fatal("both files in one chunk: the test proves nothing")
	}
	c.at[oldK].Store(time.Now().Add(-2 * time.Hour).UnixNano())
	got := result(t, s, q)
	if !strings.Contains(got, "f01.txt") {
		t.Fatalf("the file of the stale chunk was not stat'ed:\n%s", got)
	}
	if strings.Contains(got, "f38.txt") {
		t.Fatalf("the file of a fresh chunk was stat'ed, or read: the chunks prove nothing:\n%s", got)
	}
	c.pass(ps, freshK)
	if want, got := result(t, ref, q), result(t, s, q); got != want {
		t.Fatalf("after the census's stat of the other chunk:\nwant %s\ngot  %s", want, got)
	}
}
