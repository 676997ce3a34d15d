package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/native"
)

// pruning reports whether every root's searches skip directories.
func pruning(s *Searcher) bool {
	for _, r := range s.roots {
		if r.prune.Load() == nil {
			return false
		}
	}
	return true
}

// indexedAgainstRef indexes root (written and settled) behind rg, or the
// native scanner without rg, and returns that reference and the indexed
// searcher; on Linux its watcher must follow the tree.
func indexedAgainstRef(t *testing.T, root string) (backend.Searcher, *Searcher) {
	t.Helper()
	var ref backend.Searcher = native.New()
	if rg := rgOr(t); rg != nil {
		ref = rg
	}
	s := newIndexed(t, ref, root)
	if runtime.GOOS == "linux" && !pruning(s) {
		t.Fatal("the watcher is not following the tree")
	}
	return ref, s
}

// countingCandidates counts the directories a walk was told to skip.
type countingCandidates struct {
	*candidates
	skipped *atomic.Int64
}

func (c countingCandidates) KeepDir(path string) bool {
	keep := c.candidates.KeepDir(path)
	if !keep {
		c.skipped.Add(1)
	}
	return keep
}

// TestPrunedSearchesSeeEveryChange: with the watcher following the tree,
// a narrowed search reads only the directories leading to a candidate or
// a change. Every kind of change from outside — a file created in a
// directory the search skips, a new directory tree, a directory renamed,
// an edit in place to the same size and times within a tick, a write
// through a new hard link, an ignore rule added and removed, a file moved
// in from outside the root, a delete — is seen by the very next search,
// with nothing waited for.
func TestPrunedSearchesSeeEveryChange(t *testing.T) {
	root := gitRoot(t)
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("p%d/q%d/r%d/f%d.txt", i%4, i%5, i, i)] = "nothing here\n"
	}
	files["p0/q0/r0/hit.txt"] = "a NEEDLE here\n"
	files["p3/q3/r23/pre.txt"] = "a NEEDLE before the swap\n"
	writeTree(t, root, files)
	settled()
	native := native.New()
	ref, s := indexedAgainstRef(t, root)
	q := backend.GrepQuery{Pattern: "NEEDLE", Mode: backend.Content, Paths: []string{root}}
	if runtime.GOOS == "linux" {
		c := s.candidatesFor(q)
		if c == nil {
			t.Fatal("NEEDLE is not narrowed")
		}
		var skipped atomic.Int64
		q2 := q
		q2.Candidates = countingCandidates{c, &skipped}
		backend.Run(context.Background(), native, q2, 0, 0)
		if skipped.Load() == 0 {
			t.Fatal("a narrowed search read every directory")
		}
	}
	check := func(step string) {
		t.Helper()
		for _, qq := range []backend.GrepQuery{q, {Pattern: "needle", IgnoreCase: true, Mode: backend.Count, Paths: []string{root}}, {Pattern: "NEEDLE", Globs: []string{"*.txt", "*.o"}, Mode: backend.FilesWithMatches, Paths: []string{root}}} {
			want, got := result(t, ref, qq), result(t, s, qq)
			if got != want {
				t.Fatalf("after %s, %+v:\nwant %s\ngot  %s", step, qq, want, got)
			}
		}
	}
	at := func(rel string) string { return filepath.Join(root, rel) }
	write := func(rel, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(at(rel)), 0o755)
		if err := os.WriteFile(at(rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check("the build")
	write("p1/q1/r1/new.txt", "NEEDLE in a new file\n")
	check("a file created in a skipped directory")
	write("p3/brand/new/tree/x.txt", "NEEDLE deep in a new tree\n")
	check("a new directory tree")
	if err := os.Rename(at("p3/brand"), at("p2/q2/moved")); err != nil {
		t.Fatal(err)
	}
	check("a directory renamed")
	// p1/q3 and p3/q3 trade names; the index knows both, and the hit
	// it knows in one is now under the other's name.
	for _, mv := range [][2]string{{"p1/q3", "p1/swap"}, {"p3/q3", "p1/q3"}, {"p1/swap", "p3/q3"}} {
		if err := os.Rename(at(mv[0]), at(mv[1])); err != nil {
			t.Fatal(err)
		}
	}
	check("a directory renamed over the name of another the index knows")
	f, err := os.OpenFile(at("p2/q2/r2/f2.txt"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("NEEDLE here"), 0) // "nothing here" is as long
	f.Close()
	check("an edit in place to the same size")
	if err := os.Link(at("p3/q3/r3/f3.txt"), at("p0/linked.txt")); err == nil {
		check("a hard link made")
		os.WriteFile(at("p0/linked.txt"), []byte("NEEDLE through the link\n"), 0o644)
		check("a write through the new link")
	}
	write("p1/q4/r9/gen.o", "NEEDLE in an object file\n")
	write("p1/q4/r9/.gitignore", "*.o\n")
	check("an ignore rule added")
	os.Remove(at("p1/q4/r9/.gitignore"))
	check("the ignore rule removed")
	outside := filepath.Join(t.TempDir(), "in.txt")
	os.WriteFile(outside, []byte("NEEDLE from outside\n"), 0o644)
	if err := os.Rename(outside, at("p2/q0/r10/in.txt")); err == nil {
		check("a file moved in from outside the root")
	}
	os.Remove(at("p0/q0/r0/hit.txt"))
	check("a delete")

	// Bursts of random changes, each followed at once by the searches.
	r := rand.New(rand.NewPCG(3, 5))
	dirs := []string{"p0/q0/r0", "p1/q1/r1", "p2/q2/r2", "p3/q3/r3", "p0/q4/r4", "p2/q2/moved/new"}
	rounds := 200
	if testing.Short() {
		rounds = 40
	}
	for round := range rounds {
		for range 1 + r.IntN(4) {
			d := dirs[r.IntN(len(dirs))]
			name := fmt.Sprintf("%s/g%d.txt", d, r.IntN(20))
			switch r.IntN(5) {
			case 0:
				write(name, strings.Repeat("NEEDLE ", r.IntN(3))+"x\n")
			case 1:
				os.Remove(at(name))
			case 2:
				os.Rename(at(name), at(fmt.Sprintf("%s/g%d.txt", dirs[r.IntN(len(dirs))], r.IntN(20))))
			case 3:
				nd := fmt.Sprintf("p%d/z%d", r.IntN(4), round)
				write(nd+"/y.txt", "NEEDLE in "+nd+"\n")
			case 4:
				if f, err := os.OpenFile(at(name), os.O_WRONLY, 0); err == nil {
					f.WriteAt([]byte("NEEDLE"), 0)
					f.Close()
				}
			}
		}
		check(fmt.Sprintf("round %d", round))
	}
	if runtime.GOOS == "linux" && !pruning(s) {
		t.Fatal("pruning was turned off by the changes")
	}
}

// TestChunkedFilesNarrowAndStayExact: a file bigger than a chunk is
// indexed as line-bounded chunks, so one holding every trigram of a
// literal only spread over its chunks is not a candidate, while a match
// in any chunk, a line longer than a chunk, and a multiline match across
// a chunk's end are all still found.
func TestChunkedFilesNarrowAndStayExact(t *testing.T) {
	root := gitRoot(t)
	filler := func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "filler line %d of nothing\n", i)
		}
		return b.String()
	}
	spread := "PM_RE\n" + filler(3*chunkSize) + "SUME\n" + filler(chunkSize) + "M_RESU\n"
	// The first chunk ends right after ALPHA_END's line end.
	head := filler(chunkSize - 200)
	head += strings.Repeat("x", chunkSize-5-len(head)-1) + "\n"
	// A chunk ending exactly at chunkSize, so the match opens the second.
	head2 := filler(chunkSize - 200)
	head2 += strings.Repeat("y", chunkSize-len(head2)-1) + "\n"
	files := map[string]string{
		"spread.txt":    spread, // PM_, M_R, _RE, RES, ESU, SUM, UME: all there, never in one chunk
		"late.txt":      filler(5*chunkSize) + "a PM_RESUME in the sixth chunk\n",
		"longline.txt":  strings.Repeat("x", 2*chunkSize) + " PM_RESUME at the end of a long line\n",
		"multiline.txt": head + "ALPHA_END\nBETA_START\n" + filler(chunkSize),
		"context.txt":   head2 + "PM_RESUME opens the second chunk\n" + filler(2*chunkSize) + "PM_RESUME at the end\n",
		"binary.txt":    "PM_RESUME before\n" + filler(2*chunkSize) + "\x00\n" + "PM_RESUME after a NUL\n" + filler(chunkSize),
		// Big enough to be mapped and read in place (the native scanner's inPlaceMin).
		"big.txt":       filler(1<<20) + "PM_RESUME deep in a big file\n" + filler(chunkSize),
		"bigbinary.txt": "PM_RESUME before\n" + filler(1<<20) + "\x00\n" + "PM_RESUME after a NUL\n",
	}
	writeTree(t, root, files)
	settled()
	native := native.New()
	s := newIndexed(t, native, root)
	q := backend.GrepQuery{Pattern: "PM_RESUME", Mode: backend.FilesWithMatches, Paths: []string{root}}
	c := s.candidatesFor(q)
	if c == nil {
		t.Fatal("PM_RESUME is not narrowed")
	}
	ix := c.idx[0]
	id, ok := ix.lookup("spread.txt")
	if !ok || ix.chunks(id) < 4 {
		t.Fatalf("spread.txt: %v, %d chunks", ok, ix.chunks(id))
	}
	if ix.hit(id, c.hits[0], false) {
		t.Error("a file whose chunks only together hold the trigrams is a candidate")
	}
	ml := backend.GrepQuery{Pattern: `ALPHA_END\nBETA_START`, Multiline: true, Mode: backend.Content, Paths: []string{root}}
	if !s.Narrows(ml) {
		t.Fatal("the multiline pattern is not narrowed: the test proves nothing")
	}
	// A multiline search takes a chunked file whose chunks together may
	// hold the match (one straddles the chunk end), and no other.
	mc := s.candidatesFor(ml)
	for name, want := range map[string]bool{"multiline.txt": true, "spread.txt": false, "late.txt": false} {
		if id, ok := ix.lookup(name); !ok || ix.chunks(id) < 2 || ix.hit(id, mc.hits[0], true) != want {
			t.Errorf("multiline: %s (%d chunks) a candidate: %v, want %v", name, ix.chunks(id), !want, want)
		}
	}
	for _, qq := range []backend.GrepQuery{
		q,
		{Pattern: "PM_RESUME", Mode: backend.Content, Paths: []string{root}},
		{Pattern: "PM_RESUME", Mode: backend.Content, Before: 2, After: 2, Paths: []string{root}},
		{Pattern: "PM_RESUME", Mode: backend.Count, Paths: []string{root}},
		{Pattern: "pm_resume", IgnoreCase: true, Mode: backend.Content, Paths: []string{root}},
		{Pattern: `PM_RESUME \w+`, Mode: backend.Content, Paths: []string{root}},
		{Pattern: `ALPHA_END\nBETA_START`, Multiline: true, Mode: backend.Content, Paths: []string{root}},
		{Pattern: `PM_RE\n`, Multiline: true, Mode: backend.Count, Paths: []string{root}},
	} {
		want, got := result(t, native, qq), result(t, s, qq)
		if got != want {
			t.Errorf("%+v:\nwant %s\ngot  %s", qq, want, got)
		}
		if !strings.Contains(want, "txt") {
			t.Errorf("%+v found nothing: the test proves nothing", qq)
		}
	}
}

// TestPrunedSearchesUnderASwapper: a swapper trades two directories'
// names in a loop and makes and deletes files (one with a newline in its
// name) while narrowed searches run; each time it stops, the very next
// answer is exactly rg's on the real tree.
func TestPrunedSearchesUnderASwapper(t *testing.T) {
	root := gitRoot(t)
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("x/d%d/f%d.txt", i%5, i)] = "plain\n"
		files[fmt.Sprintf("y/e%d/g%d.txt", i%4, i)] = "plain\n"
	}
	files["x/d1/hit.txt"] = "NEEDLE in x\n"
	files["y/e2/nl\nname.txt"] = "NEEDLE behind a newline\n"
	writeTree(t, root, files)
	settled()
	ref, s := indexedAgainstRef(t, root)
	// Globs list through the native walker (as auto does), taking times
	// from the index where it trusts them.
	native := native.New()
	sg := newIndexed(t, native, root)
	q := backend.GrepQuery{Pattern: "NEEDLE", Mode: backend.Content, Paths: []string{root}}
	at := func(rel string) string { return filepath.Join(root, rel) }
	rounds := 30
	if testing.Short() {
		rounds = 8
	}
	for round := range rounds {
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				os.Rename(at("x"), at("tmp"))
				os.Rename(at("y"), at("x"))
				os.Rename(at("tmp"), at("y"))
				name := fmt.Sprintf("z/n%d\nl%d.txt", round, i%7)
				if i%3 == 0 {
					os.MkdirAll(at("z"), 0o755)
					os.WriteFile(at(name), []byte("NEEDLE z\n"), 0o644)
				} else {
					os.Remove(at(name))
				}
			}
		}()
		for range 3 {
			backend.Run(context.Background(), s, q, 0, 0) // while it swaps: must not fail or hang
			sg.Glob(context.Background(), backend.GlobQuery{Pattern: "**/*.txt", Paths: []string{root}}, func(backend.File) error { return nil })
		}
		close(stop)
		<-done
		if want, got := result(t, ref, q), result(t, s, q); got != want {
			t.Fatalf("round %d, right after the swapper stopped:\nwant %s\ngot  %s", round, want, got)
		}
		if want, got := globList(t, native, root, "**/*.txt"), globList(t, sg, root, "**/*.txt"); got != want {
			t.Fatalf("round %d, glob right after the swapper stopped:\nwant %s\ngot  %s", round, want, got)
		}
	}
}

// TestNonASCIINarrows: a pattern every match of which needs a non-ASCII
// rune (\p{Greek}, é) asks no trigram, yet only the contents, and the
// chunks, holding a byte ≥ 0x80 are its candidates; a two-byte file
// with no trigram at all is among them.
func TestNonASCIINarrows(t *testing.T) {
	root := gitRoot(t)
	var filler strings.Builder
	for i := 0; filler.Len() < 3*chunkSize; i++ {
		fmt.Fprintf(&filler, "plain ascii line %d\n", i)
	}
	writeTree(t, root, map[string]string{
		"ascii.txt": "nothing but ASCII here\n",
		"greek.txt": "λόγος\n",
		"short.txt": "é",
		"late.txt":  filler.String() + "a late αλήθεια\n",
	})
	settled()
	native := native.New()
	s := newIndexed(t, native, root)
	ix := s.roots[0].ix.Load()
	for _, c := range []struct {
		pat  string
		want []string
	}{
		{`\p{Greek}`, []string{"greek.txt", "late.txt", "short.txt"}}, // é: not ASCII, so not ruled out
		{`é`, []string{"greek.txt", "late.txt", "short.txt"}},
	} {
		ids, all := ix.match(plan(backend.GrepQuery{Pattern: c.pat}), false)
		if all {
			t.Fatalf("%q: not narrowed", c.pat)
		}
		in := map[uint32]bool{}
		for _, id := range ids {
			in[id] = true
		}
		var got []string
		for i := range ix.Files() {
			for k := range ix.chunks(i) {
				if in[uint32(ix.content(i)+k)] {
					got = append(got, string(ix.nameBytes(i)))
					break
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%q: candidates %v, want %v", c.pat, got, c.want)
		}
	}
	id, _ := ix.lookup("late.txt")
	q := backend.GrepQuery{Pattern: `\p{Greek}+`, Mode: backend.Content, Paths: []string{root}}
	c := s.candidatesFor(q)
	if n := ix.chunks(id); n < 3 || ix.hit(id, c.hits[0], false) != true || has(c.hits[0], ix.content(id)) {
		t.Errorf("late.txt: %d chunks; only its last should be a candidate", n)
	}
	for _, qq := range []backend.GrepQuery{q, {Pattern: "é", Mode: backend.Count, Paths: []string{root}}, {Pattern: `\p{Greek}`, Multiline: true, Mode: backend.Content, Paths: []string{root}}} {
		if want, got := result(t, native, qq), result(t, s, qq); got != want || !strings.Contains(want, "txt") {
			t.Errorf("%+v:\nwant %s\ngot  %s", qq, want, got)
		}
	}
}

// globList is b's answer to a glob of pattern in root: each file's path
// below root, time and size, sorted.
func globList(t *testing.T, b backend.Searcher, root, pattern string) string {
	t.Helper()
	var out []string
	err := b.Glob(context.Background(), backend.GlobQuery{Pattern: pattern, Paths: []string{root}}, func(f backend.File) error {
		out = append(out, fmt.Sprintf("%q %d %d", f.Path[len(root):], f.ModTime.UnixNano(), f.Size))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// TestGlobTimesFromTheIndexStayExact: a glob over a followed root takes
// each unchanged file's time and size from the index, and every change
// made from outside since the check (times set alone, an append, a write
// through another hard link, a file made, one deleted) is stat'ed: the
// answer, times and sizes included, is the walk's own.
func TestGlobTimesFromTheIndexStayExact(t *testing.T) {
	root := gitRoot(t)
	writeTree(t, root, map[string]string{
		"a/x.c": "int x;\n", "a/y.c": "int y;\n", "b/z.c": "int z;\n", "b/h1.c": "int h;\n", "c/keep.txt": "keep\n",
	})
	if err := os.Link(filepath.Join(root, "b/h1.c"), filepath.Join(root, "c/h2.c")); err != nil {
		t.Fatal(err)
	}
	settled()
	native := native.New() // what lists globs under auto, rg on PATH or not
	s := newIndexed(t, native, root)
	if runtime.GOOS == "linux" && !pruning(s) {
		t.Fatal("the watcher is not following the tree")
	}
	list := func(b backend.Searcher) string { return globList(t, b, root, "**/*.c") }
	if got, want := list(s), list(native); got != want {
		t.Fatalf("before any change:\n%s\nwant\n%s", got, want)
	}
	if runtime.GOOS == "linux" {
		k := s.knownFor([]string{root})
		if k == nil {
			t.Fatal("no times from the index: the test proves nothing")
		}
		if _, ok := k.file(-1, "x.c", filepath.Join(root, "a/x.c")); !ok {
			t.Fatal("an unchanged file's time is not taken from the index: the test proves nothing")
		}
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(root, "a/x.c"), old, old); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(root, "b/z.c"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("int zz;\n")
	f.Close()
	if err := os.WriteFile(filepath.Join(root, "c/h2.c"), []byte("int h2 written through the second name;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"a/new.c": "int n;\n"})
	if err := os.Remove(filepath.Join(root, "a/y.c")); err != nil {
		t.Fatal(err)
	}
	if got, want := list(s), list(native); got != want {
		t.Fatalf("after changes from outside:\n%s\nwant\n%s", got, want)
	}
}
