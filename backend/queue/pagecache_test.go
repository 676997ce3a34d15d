package queue

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
)

// countingSearcher reports one matching line in each of its files and
// counts the searches it ran.
type countingSearcher struct {
	files    []string
	searches int
	tooLong  int64 // entries each search counts as TooLong
}

func (*countingSearcher) Name() string { return "counting" }

func (s *countingSearcher) Grep(ctx context.Context, q backend.GrepQuery, sink backend.Sink) error {
	s.searches++
	q.Skipped.Add(s.tooLong)
	for _, f := range s.files {
		fs := sink.File(f)
		fs.Line(1, []byte("match"), false)
		if !fs.End(1) {
			return nil
		}
	}
	return ctx.Err()
}

func (s *countingSearcher) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	s.searches++
	q.Skipped.Add(s.tooLong)
	for _, f := range s.files {
		if err := fn(backend.File{Path: f}); err != nil {
			return err
		}
	}
	return nil
}

func pagedTree(t *testing.T, n int) (string, *countingSearcher) {
	dir := t.TempDir()
	s := &countingSearcher{}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("f%03d", i))
		if err := os.WriteFile(p, []byte("match\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s.files = append(s.files, p)
	}
	old := time.Now().Add(-time.Hour) // written well before any search
	for _, p := range append(s.files, dir) {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	// Their change times are now: let them fall further behind than the
	// test's slack, as a tree edited before a search is.
	time.Sleep(2 * testSlack)
	return dir, s
}

// testSlack is the page cache's slack in these tests: a change after a
// search has a later time than this before it, whatever the tick.
const testSlack = 100 * time.Millisecond

// newTestPages is NewPages with testSlack.
func newTestPages(ttl time.Duration, budget int) *Pages {
	p := NewPages(ttl, budget)
	p.slack = testSlack
	return p
}

// TestLaterPagesComeFromTheKeptResult pins issue 25's "pages that cost a
// page": offset pages after the first are served from the first page's
// result, with its total, without searching again; a first page, a write
// (Changed) and a changed file each make the next search fresh.
func TestLaterPagesComeFromTheKeptResult(t *testing.T) {
	dir, inner := pagedTree(t, 30)
	pages := newTestPages(0, 0)
	s := pages.Searcher(inner)
	ctx := WithOwner(context.Background(), "session")
	q := backend.GrepQuery{Pattern: "match", Paths: []string{dir}, Mode: backend.Content}
	first, err := backend.Run(ctx, s, q, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var seen []backend.Entry
	seen = append(seen, first.Entries...)
	for _, off := range []int{10, 20} {
		r, err := backend.Run(ctx, s, q, off, 10)
		if err != nil {
			t.Fatal(err)
		}
		if r.Total != first.Total || len(r.Entries) != 10 {
			t.Fatalf("page at %d: total %d (first %d), %d entries", off, r.Total, first.Total, len(r.Entries))
		}
		seen = append(seen, r.Entries...)
	}
	if inner.searches != 1 {
		t.Fatalf("%d searches for three pages, want 1", inner.searches)
	}
	for i, e := range seen {
		if e.Path != inner.files[i] {
			t.Fatalf("entry %d is %s, want %s", i, e.Path, inner.files[i])
		}
	}
	// Another session's later page is its own search.
	if _, err := backend.Run(WithOwner(context.Background(), "other"), s, q, 10, 10); err != nil || inner.searches != 2 {
		t.Fatalf("another session: err %v, %d searches", err, inner.searches)
	}
	// A first page searches afresh.
	backend.Run(ctx, s, q, 0, 10)
	if inner.searches != 3 {
		t.Fatalf("a first page was served from the cache")
	}
	pages.Changed()
	backend.Run(ctx, s, q, 10, 10)
	if inner.searches != 4 {
		t.Fatalf("a later page after a write was served from the cache")
	}
	// A file created where the result's files are, after it was kept.
	if err := os.WriteFile(filepath.Join(dir, "new"), []byte("match\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	backend.Run(ctx, s, q, 10, 10)
	if inner.searches != 5 {
		t.Fatalf("a later page after a file was created was served from the cache")
	}
	// A capped search is not kept.
	backend.RunCapped(ctx, s, q, 0, 10, backend.Caps{Files: 2})
	backend.Run(ctx, s, q, 10, 10)
	if inner.searches != 7 {
		t.Fatalf("%d searches: a capped result was kept", inner.searches)
	}
}

// TestKeptPagesEqualFreshPages: for every mode, a page taken from the
// kept result equals the same page of a fresh search, entries and totals;
// a sink that is not a Collector gets the result replayed file by file.
func TestKeptPagesEqualFreshPages(t *testing.T) {
	dir, inner := pagedTree(t, 25)
	s := newTestPages(0, 0).Searcher(inner)
	ctx := WithOwner(context.Background(), "equal")
	for _, mode := range []backend.Mode{backend.Content, backend.Count, backend.FilesWithMatches} {
		q := backend.GrepQuery{Pattern: "match", Paths: []string{dir}, Mode: mode}
		if _, err := backend.Run(ctx, s, q, 0, 7); err != nil {
			t.Fatal(err)
		}
		for _, off := range []int{3, 7, 20, 40} {
			kept, err := backend.Run(ctx, s, q, off, 7)
			if err != nil {
				t.Fatal(err)
			}
			fresh, _ := backend.Run(context.Background(), inner, q, off, 7)
			if kept.Total != fresh.Total || kept.Files != fresh.Files || len(kept.Entries) != len(fresh.Entries) {
				t.Fatalf("%v at %d: kept %d/%d/%d, fresh %d/%d/%d", mode, off, kept.Total, kept.Files, len(kept.Entries), fresh.Total, fresh.Files, len(fresh.Entries))
			}
			for i := range kept.Entries {
				k, f := kept.Entries[i], fresh.Entries[i]
				if k.Path != f.Path || k.Line != f.Line || string(k.Text) != string(f.Text) || k.Count != f.Count {
					t.Fatalf("%v at %d, entry %d: %+v, fresh %+v", mode, off, i, k, f)
				}
			}
		}
		files := 0
		before := inner.searches
		err := backend.Grep(backend.LaterPage(ctx), s, q, sinkFunc(func(string) backend.FileSink { files++; return discard{} }))
		if err != nil || files != 25 || inner.searches != before {
			t.Fatalf("%v replay to a plain sink: err %v, %d files, %d searches", mode, err, files, inner.searches-before)
		}
	}
}

type sinkFunc func(string) backend.FileSink

func (f sinkFunc) File(p string) backend.FileSink { return f(p) }

type discard struct{}

func (discard) Line(int, []byte, bool) bool { return true }
func (discard) End(int) bool                { return true }

// TestKeptPagesKeepTheSkippedCount: a later page served from the kept
// result says as many paths were skipped as the first.
func TestKeptPagesKeepTheSkippedCount(t *testing.T) {
	dir, inner := pagedTree(t, 30)
	inner.tooLong = 3
	s := newTestPages(0, 0).Searcher(inner)
	ctx := WithOwner(context.Background(), "session")
	q := backend.GrepQuery{Pattern: "match", Paths: []string{dir}}
	for _, off := range []int{0, 10} {
		r, err := backend.Run(ctx, s, q, off, 10)
		if err != nil {
			t.Fatal(err)
		}
		if r.TooLong != 3 {
			t.Fatalf("grep page at %d: skipped %d, want 3", off, r.TooLong)
		}
	}
	g := backend.GlobQuery{Pattern: "*", Paths: []string{dir}}
	for _, later := range []bool{false, true} {
		c := ctx
		if later {
			c = backend.LaterPage(ctx)
		}
		g.Skipped = new(backend.Skipped)
		if err := s.Glob(c, g, func(backend.File) error { return nil }); err != nil || g.Skipped.Count() != 3 {
			t.Fatalf("glob (later page %v): skipped %d, %v", later, g.Skipped.Count(), err)
		}
	}
	if inner.searches != 2 {
		t.Fatalf("%d searches, want 2 (one grep, one glob)", inner.searches)
	}
}

// TestAGlobTooBigToKeepWholeKeepsItsFirstPages pins the paging of a glob
// whose result is over the kept budget (`**/*.c` on the 1M-file tree:
// 416k paths): its first files in the caller's order are kept with the
// count of the rest, so a later page among them is served without a
// search and with the whole total; a page past them searches again; a
// file created in the result's directory drops it.
func TestAGlobTooBigToKeepWholeKeepsItsFirstPages(t *testing.T) {
	dir, inner := pagedTree(t, 200)
	s := newTestPages(0, 40*(len(inner.files[0])+pageOverhead)).Searcher(inner) // 20 files' worth a result
	ctx := WithOwner(context.Background(), "session")
	desc := func(a, b backend.File) bool { return a.Path > b.Path } // not the order the searcher lists in
	glob := func(c context.Context, keep int) (got []string, total int) {
		q := backend.GlobQuery{Pattern: "*", Paths: []string{dir}, Order: desc, Keep: keep, Beyond: new(backend.Skipped)}
		if err := s.Glob(c, q, func(f backend.File) error { got = append(got, f.Path); total++; return nil }); err != nil {
			t.Fatal(err)
		}
		return got, total + int(q.Beyond.Count())
	}
	if _, total := glob(ctx, 10); total != 200 || inner.searches != 1 {
		t.Fatalf("first page: total %d, %d searches", total, inner.searches)
	}
	got, total := glob(backend.LaterPage(ctx), 15)
	if inner.searches != 1 {
		t.Fatalf("a later page within the kept files searched again")
	}
	if total != 200 || len(got) < 15 || len(got) >= 20 {
		t.Fatalf("later page: total %d, %d files passed", total, len(got))
	}
	slices.SortFunc(got, func(a, b string) int { return strings.Compare(b, a) }) // passed in no order
	for i, p := range got {
		if want := inner.files[199-i]; p != want {
			t.Fatalf("kept file %d is %s, want %s (the first in the caller's order)", i, p, want)
		}
	}
	if _, total := glob(backend.LaterPage(ctx), 100); total != 200 || inner.searches != 2 {
		t.Fatalf("a page past the kept files: total %d, %d searches (want a fresh one)", total, inner.searches)
	}
	glob(ctx, 10) // kept again
	if err := os.WriteFile(filepath.Join(dir, "new"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if glob(backend.LaterPage(ctx), 15); inner.searches != 4 {
		t.Fatalf("a later page after a file was created was served from the kept files")
	}
}

// TestAGlobOverManyDirectoriesIsStillKept: a glob too big to keep whole
// whose later matches rank after the kept ones, each in a new directory,
// still leaves a kept result: the directories' cost pushes out kept files
// rather than the whole result over the budget (on the 1M-file tree,
// `**/*.c` at offset 40,000 cost the whole walk again for this).
func TestAGlobOverManyDirectoriesIsStillKept(t *testing.T) {
	root := t.TempDir()
	inner := &countingSearcher{}
	old := time.Now().Add(-time.Hour)
	for i := range 200 {
		d := filepath.Join(root, fmt.Sprintf("d%03d", i))
		p := filepath.Join(d, "f.c")
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{p, d} {
			if err := os.Chtimes(q, old, old); err != nil {
				t.Fatal(err)
			}
		}
		inner.files = append(inner.files, p)
	}
	if err := os.Chtimes(root, old, old); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * testSlack) // the change times Chtimes set fall behind the slack, as pagedTree's do
	dirs := 0
	for _, f := range inner.files {
		dirs += len(filepath.Dir(f)) + dirOverhead
	}
	// Room for every directory and 20 files: kept in part.
	s := newTestPages(0, 2*(dirs+20*(len(inner.files[0])+pageOverhead))).Searcher(inner)
	ctx := WithOwner(context.Background(), "session")
	asc := func(a, b backend.File) bool { return a.Path < b.Path } // the order the searcher lists in
	glob := func(c context.Context, keep int) (total int) {
		q := backend.GlobQuery{Pattern: "**/*.c", Paths: []string{root}, Order: asc, Keep: keep, Beyond: new(backend.Skipped)}
		if err := s.Glob(c, q, func(backend.File) error { total++; return nil }); err != nil {
			t.Fatal(err)
		}
		return total + int(q.Beyond.Count())
	}
	if total := glob(ctx, 5); total != 200 {
		t.Fatalf("first page: total %d", total)
	}
	if total := glob(backend.LaterPage(ctx), 10); total != 200 || inner.searches != 1 {
		t.Fatalf("a later page among the first files: total %d, %d searches (want 1: served from the kept result)", total, inner.searches)
	}
}

// TestLastDirIsFilepathDir: the directory memory answers filepath.Dir for
// every path, in a listing's order and out of it, for paths clean or not
// (a doubled or trailing separator, "." and ".." elements, none at all),
// and the directories a kept result watches are each file's, once.
func TestLastDirIsFilepathDir(t *testing.T) {
	elems := []string{"", "a", "b", ".", "..", "a.c", "dir", "x y", "é", "new\nline"}
	rng := rand.New(rand.NewPCG(3, 4))
	var paths []string
	for range 5000 {
		parts := make([]string, 1+rng.IntN(5))
		for i := range parts {
			parts[i] = elems[rng.IntN(len(elems))]
		}
		p := strings.Join(parts, string(filepath.Separator))
		if rng.IntN(2) == 0 {
			p = string(filepath.Separator) + p
		}
		paths = append(paths, p)
	}
	sorted := slices.Clone(paths)
	slices.Sort(sorted)
	for _, list := range [][]string{paths, sorted} {
		var last lastDir
		want := map[string]bool{}
		for _, p := range list {
			if got, _ := last.of(p); got != filepath.Dir(p) {
				t.Fatalf("of(%q) = %q, filepath.Dir says %q", p, got, filepath.Dir(p))
			}
			want[filepath.Dir(p)] = true
		}
		got := watchDirs(nil, slices.Values(list))
		if len(got) != len(want) {
			t.Fatalf("watchDirs: %d directories, want %d", len(got), len(want))
		}
		for _, d := range got {
			if !want[d] {
				t.Fatalf("watchDirs: %q is no file's directory", d)
			}
		}
		r := &globRecorder{heap: true, dirs: map[string]bool{}}
		for _, p := range list {
			r.addDir(p)
		}
		if !maps.Equal(r.dirs, want) {
			t.Fatalf("globRecorder: %d directories, want %d", len(r.dirs), len(want))
		}
	}
}

// TestALaterPageSeesAFileRewrittenInPlace: a file of the kept result
// rewritten in place (the same inode, its directory untouched, even its
// modification time put back, as tar -m or rsync -t leave it) drops the
// result before a later page is served from it, for grep and glob: the
// page cache asks of each file what the index asks of a file it skips.
// Only the directories were asked, and the page showed the old line as
// current.
func TestALaterPageSeesAFileRewrittenInPlace(t *testing.T) {
	dir, inner := pagedTree(t, 30)
	s := newTestPages(0, 0).Searcher(inner)
	ctx := WithOwner(context.Background(), "session")
	q := backend.GrepQuery{Pattern: "match", Paths: []string{dir}, Mode: backend.Content}
	g := backend.GlobQuery{Pattern: "*", Paths: []string{dir}}
	search := func(later bool) {
		c, off := ctx, 0
		if later {
			c, off = backend.LaterPage(ctx), 20
		}
		if _, err := backend.Run(ctx, s, q, off, 10); err != nil {
			t.Fatal(err)
		}
		if err := s.Glob(c, g, func(backend.File) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	search(false)
	search(true)
	if inner.searches != 2 {
		t.Fatalf("%d searches, want 2: the later pages come from the kept results", inner.searches)
	}
	fi, err := os.Stat(inner.files[25])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inner.files[25], []byte("match, rewritten\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(inner.files[25], fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	search(true)
	if inner.searches != 4 {
		t.Fatalf("%d searches, want 4: a later page after a file of the result was rewritten in place came from the kept result", inner.searches)
	}
}
