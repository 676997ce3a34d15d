package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/native"
)

// TestListPathIsExact: on a followed root a narrowed search reads its
// candidates from the index's list of names and a glob lists from it,
// and both answer what the unindexed walk answers after every kind of
// change made between the check and the query: a file added, removed,
// renamed (into a name the ignore rules hide, too), written through a
// hard link from outside the root, an ignore rule added and removed, a
// directory made; under negative globs, types, -i and a search path
// below the root. Files without a watch of their own (all but one with
// a link from outside when the tree was checked, and every file where
// no file watch is to be had) are trusted after a census pass, or
// stat'ed from the list by every search (the sweep; CensusBound < 0), and
// the answers are the same; the write through a link from outside is
// checked after a census pass that began after it.
func TestListPathIsExact(t *testing.T) {
	for _, c := range []struct {
		budget int
		census time.Duration
	}{{-1, -1}, {0, -1}, {-1, time.Hour}, {0, time.Hour}} {
		budget := c.budget
		t.Run(fmt.Sprintf("budget=%d,census=%s", budget, c.census), func(t *testing.T) {
			root := gitRoot(t)
			files := map[string]string{
				".gitignore":          "ignored/\n*.log\n",
				"ignored/hidden.c":    "NEEDLE hidden\n",
				"top.c":               "NEEDLE at the top\n",
				"sub/a.c":             "int NEEDLE;\n",
				"sub/b.txt":           "needle, lower case\n",
				"sub/deep/c.go":       "// NEEDLE in go\n",
				"sub/deep/plain.c":    "nothing\n",
				"other/x.txt":         "NEEDLE in text\n",
				"other/y.c":           "nothing here\n",
				"other/far/z.c":       "nothing at all\n",
				"binary.bin":          "NEEDLE\x00binary\n",
				"other/far/moved.txt": "nothing to move\n",
			}
			for i := range 20 {
				files[fmt.Sprintf("bulk/d%d/f%d.c", i%4, i)] = "filler text\n"
			}
			writeTree(t, root, files)
			settled()
			ref := backend.Searcher(native.New())
			early := filepath.Join(t.TempDir(), "early")
			if err := os.Link(filepath.Join(root, "sub/deep/plain.c"), early); err != nil {
				t.Fatal(err)
			}
			s, err := New(ref, native.New(), Options{Mode: "on", Roots: []string{root}, CacheDir: t.TempDir(), Settle: testSettle, MaxShare: 1, CensusBound: c.census})
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
			if budget == 0 && len(s.roots[0].prune.Load().externalIDs) == 0 {
				t.Fatal("without file watches no file is swept")
			}
			queries := []backend.GrepQuery{
				{Pattern: "NEEDLE"},
				{Pattern: "NEEDLE", IgnoreCase: true},
				{Pattern: "NEEDLE", Globs: []string{"!*.txt"}},
				{Pattern: "NEEDLE", Globs: []string{"!sub/deep"}},
				{Pattern: "NEEDLE", Types: []string{"c"}},
				{Pattern: "NEEDLE", Paths: []string{filepath.Join(root, "sub")}},
				{Pattern: "NEEDLE", Globs: []string{"*.c"}}, // restores: walks
			}
			globs := []string{"**", "**/*.c", "sub/**/*.go", "*.c"}
			check := func(step string) {
				t.Helper()
				for _, q := range queries {
					if q.Paths == nil {
						q.Paths = []string{root}
					}
					q.Mode = backend.Content
					c := s.candidatesFor(q)
					if len(q.Globs) == 0 || q.Globs[0] != "*.c" {
						if c == nil || c.prune[0] == nil || !c.prune[0].list {
							t.Fatalf("%s: %+v is not read from the list", step, q)
						}
					}
					if c != nil {
						c.settle()
					}
					if want, got := result(t, ref, q), result(t, s, q); got != want {
						t.Fatalf("after %s, %+v:\nwant %s\ngot  %s", step, q, want, got)
					}
				}
				for _, g := range globs {
					if s.listerFor(backend.GlobQuery{Pattern: g, Paths: []string{root}}) == nil {
						t.Fatalf("%s: the glob %s is not listed from the index", step, g)
					}
					if want, got := globList(t, ref, root, g), globList(t, s, root, g); got != want {
						t.Fatalf("after %s, glob %s:\nwant %s\ngot  %s", step, g, want, got)
					}
				}
			}
			write := func(rel, content string) {
				t.Helper()
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			move := func(from, to string) {
				t.Helper()
				if err := os.Rename(filepath.Join(root, from), filepath.Join(root, to)); err != nil {
					t.Fatal(err)
				}
			}
			check("the build")
			write("bulk/d1/new.c", "a NEEDLE added\n")
			check("a file added")
			if err := os.Remove(filepath.Join(root, "sub/a.c")); err != nil {
				t.Fatal(err)
			}
			check("a candidate removed")
			move("top.c", "bulk/d2/top-renamed.c")
			check("a candidate renamed")
			move("other/x.txt", "other/x.log")
			check("a candidate renamed to a name the ignore rules hide")
			move("other/far/moved.txt", "sub/deep/moved.c")
			check("a file moved between directories")
			hl := filepath.Join(t.TempDir(), "hl")
			if err := os.Link(filepath.Join(root, "other/far/z.c"), hl); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(hl, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("NEEDLE through a link from outside\n")
			f.Close()
			if c.census > 0 {
				ps := s.roots[0].prune.Load()
				ps.census.passAll(ps)
			}
			check("a write through a hard link from outside")
			f, err = os.OpenFile(early, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("NEEDLE through a link from outside made before the check\n")
			f.Close()
			if c.census > 0 && budget == 0 {
				ps := s.roots[0].prune.Load()
				ps.census.passAll(ps) // no watch of its own
			}
			check("a write through a hard link from outside made before the check")
			write("other/.gitignore", "y.c\n")
			write("other/y.c", "NEEDLE now, but ignored\n")
			check("an ignore rule added")
			if err := os.Remove(filepath.Join(root, "other/.gitignore")); err != nil {
				t.Fatal(err)
			}
			check("the ignore rule removed")
			write("fresh/dir/n.c", "NEEDLE in a new directory\n")
			check("a directory made")
			write("ignored/more.c", "NEEDLE still hidden\n")
			check("a file written where the ignore rules hide it")
		})
	}
}
