package backend

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// countingSearcher reports one matching line in each of its files and
// counts the searches it ran.
type countingSearcher struct {
	files    []string
	searches int
	tooLong  int64 // entries each search counts as TooLong
}

func (*countingSearcher) Name() string { return "counting" }

func (s *countingSearcher) Grep(ctx context.Context, q GrepQuery, sink Sink) error {
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

func (s *countingSearcher) Glob(ctx context.Context, q GlobQuery, fn func(File) error) error {
	s.searches++
	q.Skipped.Add(s.tooLong)
	for _, f := range s.files {
		if err := fn(File{Path: f}); err != nil {
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
	return dir, s
}

// TestLaterPagesComeFromTheKeptResult pins issue 25's "pages that cost a
// page": offset pages after the first are served from the first page's
// result, with its total, without searching again; a first page, a write
// (Changed) and a changed file each make the next search fresh.
func TestLaterPagesComeFromTheKeptResult(t *testing.T) {
	dir, inner := pagedTree(t, 30)
	s := NewPages(0, 0).Searcher(inner)
	ctx := WithQueue(context.Background(), "session")
	q := GrepQuery{Pattern: "match", Paths: []string{dir}, Mode: Content}
	first, err := Run(ctx, s, q, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var seen []Entry
	seen = append(seen, first.Entries...)
	for _, off := range []int{10, 20} {
		r, err := Run(ctx, s, q, off, 10)
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
	if _, err := Run(WithQueue(context.Background(), "other"), s, q, 10, 10); err != nil || inner.searches != 2 {
		t.Fatalf("another session: err %v, %d searches", err, inner.searches)
	}
	// A first page searches afresh.
	Run(ctx, s, q, 0, 10)
	if inner.searches != 3 {
		t.Fatalf("a first page was served from the cache")
	}
	Changed()
	Run(ctx, s, q, 10, 10)
	if inner.searches != 4 {
		t.Fatalf("a later page after a write was served from the cache")
	}
	// A file created where the result's files are, after it was kept.
	if err := os.WriteFile(filepath.Join(dir, "new"), []byte("match\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Run(ctx, s, q, 10, 10)
	if inner.searches != 5 {
		t.Fatalf("a later page after a file was created was served from the cache")
	}
	// A capped search is not kept.
	RunCapped(ctx, s, q, 0, 10, Caps{Files: 2})
	Run(ctx, s, q, 10, 10)
	if inner.searches != 7 {
		t.Fatalf("%d searches: a capped result was kept", inner.searches)
	}
}

// TestKeptPagesEqualFreshPages: for every mode, a page taken from the
// kept result equals the same page of a fresh search, entries and totals;
// a sink that is not a Collector gets the result replayed file by file.
func TestKeptPagesEqualFreshPages(t *testing.T) {
	dir, inner := pagedTree(t, 25)
	s := NewPages(0, 0).Searcher(inner)
	ctx := WithQueue(context.Background(), "equal")
	for _, mode := range []Mode{Content, Count, FilesWithMatches} {
		q := GrepQuery{Pattern: "match", Paths: []string{dir}, Mode: mode}
		if _, err := Run(ctx, s, q, 0, 7); err != nil {
			t.Fatal(err)
		}
		for _, off := range []int{3, 7, 20, 40} {
			kept, err := Run(ctx, s, q, off, 7)
			if err != nil {
				t.Fatal(err)
			}
			fresh, _ := Run(context.Background(), inner, q, off, 7)
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
		err := Grep(LaterPage(ctx), s, q, sinkFunc(func(string) FileSink { files++; return discard{} }))
		if err != nil || files != 25 || inner.searches != before {
			t.Fatalf("%v replay to a plain sink: err %v, %d files, %d searches", mode, err, files, inner.searches-before)
		}
	}
}

type sinkFunc func(string) FileSink

func (f sinkFunc) File(p string) FileSink { return f(p) }

type discard struct{}

func (discard) Line(int, []byte, bool) bool { return true }
func (discard) End(int) bool                { return true }

// TestKeptPagesKeepTheSkippedCount: a later page served from the kept
// result says as many paths were skipped as the first.
func TestKeptPagesKeepTheSkippedCount(t *testing.T) {
	dir, inner := pagedTree(t, 30)
	inner.tooLong = 3
	s := NewPages(0, 0).Searcher(inner)
	ctx := WithQueue(context.Background(), "session")
	q := GrepQuery{Pattern: "match", Paths: []string{dir}}
	for _, off := range []int{0, 10} {
		r, err := Run(ctx, s, q, off, 10)
		if err != nil {
			t.Fatal(err)
		}
		if r.TooLong != 3 {
			t.Fatalf("grep page at %d: skipped %d, want 3", off, r.TooLong)
		}
	}
	g := GlobQuery{Pattern: "*", Paths: []string{dir}}
	for _, later := range []bool{false, true} {
		c := ctx
		if later {
			c = LaterPage(ctx)
		}
		g.Skipped = new(Skipped)
		if err := s.Glob(c, g, func(File) error { return nil }); err != nil || g.Skipped.Count() != 3 {
			t.Fatalf("glob (later page %v): skipped %d, %v", later, g.Skipped.Count(), err)
		}
	}
	if inner.searches != 2 {
		t.Fatalf("%d searches, want 2 (one grep, one glob)", inner.searches)
	}
}
