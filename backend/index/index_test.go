package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/driver"
	"github.com/fsmcp/fsmcp/backend/native"
	"github.com/fsmcp/fsmcp/backend/pattern"
)

// testSettle is the settle time tests index with: above the ext4/tmpfs
// clock tick, short enough to wait for.
const testSettle = 30 * time.Millisecond

// writeTree writes files (relative path → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// settled returns once every file written so far is older than the
// settle time, so a build indexes them all.
func settled() {
	deadline := time.Now().Add(testSettle + 5*time.Millisecond)
	for time.Now().Before(deadline) {
		time.Sleep(time.Until(deadline))
	}
}

// started starts a searcher over opts and waits for its first build (or
// its reuse of the cache) to end.
func started(t *testing.T, opts Options) *Searcher {
	t.Helper()
	s, err := New(native.New(), native.New(), opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	s.Wait()
	return s
}

// newIndexed builds root's index with next behind it and returns the
// searcher, ready.
func newIndexed(t *testing.T, next backend.Searcher, root string) *Searcher {
	t.Helper()
	s, err := New(next, native.New(), Options{Mode: "on", Roots: []string{root}, CacheDir: t.TempDir(), Settle: testSettle, MaxShare: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	s.Wait()
	if !s.Ready() {
		t.Fatal("index not ready after its build")
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// result is q's whole formatted answer from s.
func result(t *testing.T, s backend.Searcher, q backend.GrepQuery) string {
	t.Helper()
	r, err := backend.Run(context.Background(), s, q, 0, 0)
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("total=%d files=%d partial=%v\n", r.Total, r.Files, r.Partial) +
		backend.Format(r, backend.FormatOptions{LineNumbers: true, Separators: q.Before > 0 || q.After > 0})
}

// rgOrSkip is the rg backend, or nil without rg on PATH.
func rgOr(t *testing.T) backend.Searcher {
	if rg, err := driver.NewRG(""); err == nil {
		return rg
	}
	t.Log("SKIPPED the rg comparisons: rg is not on PATH")
	return nil
}

var fixtureFiles = map[string]string{
	"a.go":            "package a\n\nfunc PM_RESUME() {}\n// Straße STRASSE\n",
	"b.c":             "static int foo_probe(struct device *d)\n{\n\treturn 0;\n}\n",
	"c.txt":           "nothing to see\nKelvin \u212a here\n",
	"sub/d.go":        "package sub\n// pm_resume lower\nvar x = \"ſecret\"\n",
	"sub/e.md":        "# Title\nERR_SYS and LINK_REQ_RST\n",
	"sub/deep/f.txt":  "alpha beta\ngamma delta\n",
	"ignored/g.txt":   "PM_RESUME in an ignored file\n",
	".gitignore":      "ignored/\n*.log\n",
	"h.log":           "PM_RESUME in a log\n",
	"bin.dat":         "PM_RESUME\x00binary\n",
	"latin1.txt":      "caf\xe9 PM_RESUME\n",
	"crlf.txt":        "foo bar\r\nPM_RESUME\r\n",
	".hidden/i.go":    "func PM_RESUME_hidden() {}\n",
	"greek.txt":       "λόγος και αλήθεια\n",
	"multi/j.txt":     "foo\nbar\nbaz\n",
	"sub/k_probe.txt": "static int bar_probe(\n",
	"short.txt":       "é", // two bytes: no trigram, but not ASCII
}

// queries are the rows compared indexed and unindexed.
var queries = []backend.GrepQuery{
	{Pattern: "PM_RESUME"},
	{Pattern: "PM_RESUME", Mode: backend.Count},
	{Pattern: "PM_RESUME", Mode: backend.Content, Before: 1, After: 1},
	{Pattern: "pm_resume", IgnoreCase: true, Mode: backend.Content},
	{Pattern: `\bPM_RESUME\b`, Mode: backend.Content},
	{Pattern: "ERR_SYS|LINK_REQ_RST|CFG_BME_EVT", Mode: backend.Content},
	{Pattern: "err_sys|link_req_rst", IgnoreCase: true},
	{Pattern: `static int \w+_probe\(`, Mode: backend.Content},
	{Pattern: "straße", IgnoreCase: true, Mode: backend.Content},
	{Pattern: "kelvin k", IgnoreCase: true, Mode: backend.Content},
	{Pattern: "SECRET", IgnoreCase: true, Mode: backend.Content},
	{Pattern: `\p{Greek}+`, Mode: backend.Count},
	{Pattern: `\p{Greek}+\s+\p{Greek}`, Multiline: true, Mode: backend.Content},
	{Pattern: `\p{Greek}`, Multiline: true, Mode: backend.Count},
	{Pattern: "É", IgnoreCase: true, Mode: backend.Content},
	{Pattern: `\p{Latin}`, Mode: backend.Content},
	{Pattern: `\w+\s+\w+_probe\b`},
	{Pattern: "."},
	{Pattern: `foo\nbar`, Multiline: true, Mode: backend.Content},
	{Pattern: `PM_RESUME\r$`, Mode: backend.Content},
	{Pattern: "PM_RESUME", NoIgnore: true},
	{Pattern: "PM_RESUME", Globs: []string{"*.go"}},
	{Pattern: "PM_RESUME", Types: []string{"go"}, Mode: backend.Count},
	{Pattern: "zzzz_not_there"},
	{Pattern: "caf", Mode: backend.Content},
	{Pattern: "x * 2", FixedStrings: true},
	{Pattern: "(unclosed"},
}

// compare checks every query's answer with the index against native
// and rg without it.
func compare(t *testing.T, root string, indexed []backend.Searcher, plain []backend.Searcher) {
	t.Helper()
	for _, q := range queries {
		q.Paths = []string{root}
		want := result(t, plain[0], q)
		for _, p := range plain[1:] {
			if got := result(t, p, q); got != want {
				t.Fatalf("%+v: the unindexed backends differ (%s vs %s):\n%s\n%s", q, plain[0].Name(), p.Name(), want, got)
			}
		}
		for _, s := range indexed {
			if got := result(t, s, q); got != want {
				t.Errorf("%+v: indexed (%s) differs from unindexed:\nwant %s\ngot  %s", q, s.Name(), want, got)
			}
		}
	}
}

// gitRoot makes root a git repository to the rules (a .git directory).
func gitRoot(t *testing.T) string {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestIndexedAnswersEqualUnindexed: every query, narrowed by a fresh
// index and by one the tree has moved away from (files created, edited
// in place to the same size, appended to, renamed, deleted, replaced),
// answers what native and rg answer without it.
func TestIndexedAnswersEqualUnindexed(t *testing.T) {
	root := gitRoot(t)
	writeTree(t, root, fixtureFiles)
	settled()
	native := native.New()
	plain := []backend.Searcher{native}
	indexed := []backend.Searcher{newIndexed(t, native, root)}
	if rg := rgOr(t); rg != nil {
		plain = append(plain, rg)
		indexed = append(indexed, newIndexed(t, rg, root))
	}
	ix := indexed[0].(*Searcher).roots[0].ix.Load()
	n := 0
	for i := range ix.nfiles {
		if _, ok := ix.fileMeta(i); ok {
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d of %d files indexed", n, ix.nfiles)
	}
	if c := indexed[0].(*Searcher).candidatesFor(backend.GrepQuery{Pattern: "PM_RESUME", Paths: []string{root}}); c == nil {
		t.Fatal("a literal query was not narrowed")
	}
	t.Run("fresh", func(t *testing.T) { compare(t, root, indexed, plain) })

	// Same size, same inode: only the times say it changed.
	f, err := os.OpenFile(filepath.Join(root, "c.txt"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("PM_RESUME see"), 0)
	f.Close()
	writeTree(t, root, map[string]string{
		"new/n.go": "// PM_RESUME new\nstatic int new_probe(void)\n", // created
		"sub/e.md": "# Title\nERR_SYS only\n",                        // rewritten
	})
	a, err := os.OpenFile(filepath.Join(root, "sub/deep/f.txt"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	a.WriteString("pm_resume appended\n")
	a.Close()
	if err := os.Rename(filepath.Join(root, "sub/d.go"), filepath.Join(root, "sub/renamed.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "b.c")); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(root, "tmp.x")
	writeTree(t, root, map[string]string{"tmp.x": "LINK_REQ_RST replaced\n"})
	if err := os.Rename(tmp, filepath.Join(root, "greek.txt")); err != nil {
		t.Fatal(err)
	}
	t.Run("changed since", func(t *testing.T) { compare(t, root, indexed, plain) })
}

// TestUnnarrowableRunsUnindexed: a pattern with no trigram to require,
// and none that needs a non-ASCII rune, is not narrowed.
func TestUnnarrowableRunsUnindexed(t *testing.T) {
	for _, p := range []string{".", `\w+`, `[a-z]`, `[^a]`, `(?i)k`, `\p{Greek}|a`, `a|b`, "", "ab", `\d+\s+\w+`} {
		if cq := plan(backend.GrepQuery{Pattern: p}); cq != nil {
			t.Errorf("%q planned as %v; want unindexed", p, cq)
		}
	}
	for _, p := range []string{"PM_RESUME", `static int \w+_probe\(`, "ERR_SYS|LINK_REQ", `\p{Greek}`, "é", `[α-ω]+`} {
		if cq := plan(backend.GrepQuery{Pattern: p}); cq == nil {
			t.Errorf("%q not narrowed", p)
		}
	}
}

// TestPlanNeverDropsAMatch: for random patterns over random texts, every
// file the pattern matches is a candidate of its trigram query, -i and
// Unicode folding included.
func TestPlanNeverDropsAMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "K", "k", "\u212a", "s", "S", "ſ", "ß", "_", " ", "\n", "é", "É", "1", "x", "λ", "Λ"}
	ix, texts := randomCorpus(t, r, alphabet, 300, 3, 14)
	atoms := []string{"a", "b", "k", "K", "s", "ſ", "ß", "é", "λ", "_", "x", " ", "[ab]", "[kK]", "(a|b)", "s?", "x*", ".", `\w`, `\s`, "[^a]", "(?:ab|ba)", "ss", "1+", `\p{Greek}`, "[à-ÿ]", "(?:é|λ)"}
	checked := 0
	for range 400 {
		q := randomQuery(r, atoms, 2, 5, 4)
		pq := plan(q)
		if pq == nil {
			continue
		}
		pat, err := pattern.Compile(q)
		if err != nil {
			continue
		}
		ids, all := ix.match(pq, q.Multiline)
		if all {
			continue
		}
		n, dropped := matchesOutside(t, ix, pat, texts, ids)
		if dropped != "" {
			t.Fatalf("pattern %q (-i %v, multiline %v) matches %q but its query %v %v drops the file", q.Pattern, q.IgnoreCase, q.Multiline, dropped, pq.cq, pq.chains)
		}
		checked += n
	}
	if checked < 50 {
		t.Fatalf("only %d matches checked", checked)
	}
}

// randomCorpus writes n files f000, f001, … of minLen plus up to spread
// symbols of alphabet each, and returns their index, ready, and texts.
func randomCorpus(t *testing.T, r *rand.Rand, alphabet []string, n, minLen, spread int) (*Index, []string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{}
	var texts []string
	for i := range n {
		var sb strings.Builder
		for range minLen + r.IntN(spread) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		texts = append(texts, sb.String())
		files[fmt.Sprintf("f%03d", i)] = sb.String()
	}
	writeTree(t, root, files)
	settled()
	s := newIndexed(t, native.New(), root)
	return s.roots[0].ix.Load(), texts
}

// randomQuery joins minAtoms plus up to spread of atoms; -i one time in
// two, multiline one in multilineOdds.
func randomQuery(r *rand.Rand, atoms []string, minAtoms, spread, multilineOdds int) backend.GrepQuery {
	var sb strings.Builder
	for range minAtoms + r.IntN(spread) {
		sb.WriteString(atoms[r.IntN(len(atoms))])
	}
	return backend.GrepQuery{Pattern: sb.String(), IgnoreCase: r.IntN(2) == 0, Multiline: r.IntN(multilineOdds) == 0}
}

// matchesOutside returns how many of randomCorpus's texts pat matches,
// and the first of them whose file is indexed but not among ids.
func matchesOutside(t *testing.T, ix *Index, pat *pattern.Pattern, texts []string, ids []uint32) (int, string) {
	t.Helper()
	in := map[uint32]bool{}
	for _, id := range ids {
		in[id] = true
	}
	n := 0
	for i, text := range texts {
		if !pat.Re.MatchString(text) {
			continue
		}
		n++
		id, ok := ix.lookup(fmt.Sprintf("f%03d", i))
		if !ok {
			t.Fatalf("f%03d not listed", i)
		}
		if _, indexed := ix.fileMeta(id); indexed && !in[uint32(ix.content(id))] {
			return n, text
		}
	}
	return n, ""
}

// TestCacheDirInsideRootRefused: the index never lives where the tools
// could read it.
func TestCacheDirInsideRootRefused(t *testing.T) {
	root := t.TempDir()
	_, err := New(native.New(), native.New(), Options{Mode: "on", Roots: []string{root}, CacheDir: filepath.Join(root, "cache")})
	if err == nil || !strings.Contains(err.Error(), "inside the allowed directory") {
		t.Fatalf("cache inside root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "cache")); !os.IsNotExist(err) {
		t.Fatalf("the refused cache directory was created: %v", err)
	}
	// Through a symlink to inside the root, too.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Skip(err)
	}
	if _, err := New(native.New(), native.New(), Options{Mode: "on", Roots: []string{root}, CacheDir: filepath.Join(link, "c")}); err == nil {
		t.Fatal("a cache directory reached through a symlink into the root was accepted")
	}
}

// TestIndexReusedAcrossRestarts: a second server on the same root maps
// the first one's index instead of building again, and its directory is
// private.
func TestIndexReusedAcrossRestarts(t *testing.T) {
	root := gitRoot(t)
	writeTree(t, root, fixtureFiles)
	settled()
	cache := t.TempDir()
	opts := Options{Mode: "on", Roots: []string{root}, CacheDir: cache, Settle: testSettle, MaxShare: 1}
	s1 := started(t, opts)
	s1.Close()
	file := cacheFile(s1.roots[0].dir)
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(s1.roots[0].dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("cache dir mode: %v %v", fi.Mode(), err)
	}
	s2 := started(t, opts)
	defer s2.Close()
	after, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if !s2.Ready() || !after.ModTime().Equal(before.ModTime()) || os.SameFile(before, after) == false {
		t.Fatalf("index rebuilt or not loaded: ready=%v", s2.Ready())
	}
	q := backend.GrepQuery{Pattern: "PM_RESUME", Paths: []string{root}, Mode: backend.Count}
	if got, want := result(t, s2, q), result(t, native.New(), q); got != want {
		t.Fatalf("reused index answers\n%s\nwant\n%s", got, want)
	}
	left, _ := filepath.Glob(filepath.Join(s1.roots[0].dir, "*.tmp"))
	if len(left) > 0 {
		t.Fatalf("a build left %v", left)
	}
}

// TestHardLinksIndexedOnce: links to one inode share one content in the
// index (a tree copied with cp -al is read once), and an edit through
// one link makes every link a candidate again.
func TestHardLinksIndexedOnce(t *testing.T) {
	root := gitRoot(t)
	writeTree(t, root, fixtureFiles)
	for _, copy := range []string{"copy1", "copy2"} {
		for rel := range fixtureFiles {
			dst := filepath.Join(root, copy, rel)
			os.MkdirAll(filepath.Dir(dst), 0o755)
			if err := os.Link(filepath.Join(root, rel), dst); err != nil {
				t.Skip("no hard links here:", err)
			}
		}
	}
	settled()
	native := native.New()
	s := newIndexed(t, native, root)
	ix := s.roots[0].ix.Load()
	if ix.ncontent*2 > ix.nfiles {
		t.Fatalf("%d contents for %d files: links were indexed separately", ix.ncontent, ix.nfiles)
	}
	compare(t, root, []backend.Searcher{s}, []backend.Searcher{native})
	f, err := os.OpenFile(filepath.Join(root, "copy2", "c.txt"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("PM_RESUME see"), 0) // same size, through one link
	f.Close()
	compare(t, root, []backend.Searcher{s}, []backend.Searcher{native})
}

// TestDamagedIndexNotUsed: an index file with one byte changed, or cut
// short, or whole but chunked at another size (its chunk flags would not
// line up with the scanner's chunks), is refused at load and the root is
// indexed again, so a torn write, a damaged disk or another build cannot
// hide a match.
func TestDamagedIndexNotUsed(t *testing.T) {
	root := gitRoot(t)
	writeTree(t, root, fixtureFiles)
	settled()
	cache := t.TempDir()
	opts := Options{Mode: "on", Roots: []string{root}, CacheDir: cache, Settle: testSettle, MaxShare: 1}
	s1 := started(t, opts)
	s1.Close()
	file := cacheFile(s1.roots[0].dir)
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	otherChunks := append([]byte{}, good...)
	binary.LittleEndian.PutUint64(otherChunks[len(magic)+6*8:], 2*backend.ChunkSize)
	binary.LittleEndian.PutUint32(otherChunks[len(otherChunks)-4:], crc32.Checksum(otherChunks[:len(otherChunks)-4], castagnoli))
	for _, damaged := range [][]byte{
		append(append([]byte{}, good[:len(good)/2]...), append([]byte{good[len(good)/2] ^ 1}, good[len(good)/2+1:]...)...),
		good[:len(good)-1],
		otherChunks,
	} {
		if err := os.WriteFile(file, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := openIndex(file, root); err == nil {
			t.Fatal("a damaged index opened")
		}
		s2 := started(t, opts)
		if !s2.Ready() {
			t.Fatal("not indexed again after a damaged index")
		}
		q := backend.GrepQuery{Pattern: "PM_RESUME", Paths: []string{root}, Mode: backend.Count}
		if got, want := result(t, s2, q), result(t, native.New(), q); got != want {
			t.Fatalf("after a damaged index: %s, want %s", got, want)
		}
		s2.Close()
	}
}

// TestChangedTreeRebuiltAtRestart: a restart over a tree in which more
// than 1% of the files changed builds the index again (the old one
// narrowing meanwhile), and the new one holds the new files.
func TestChangedTreeRebuiltAtRestart(t *testing.T) {
	root := gitRoot(t)
	writeTree(t, root, fixtureFiles)
	settled()
	opts := Options{Mode: "on", Roots: []string{root}, CacheDir: t.TempDir(), Settle: testSettle, MaxShare: 1}
	s1 := started(t, opts)
	s1.Close()
	writeTree(t, root, map[string]string{"added/one.txt": "PM_RESUME added\n", "added/two.txt": "two\n"})
	settled()
	s2 := started(t, opts)
	defer s2.Close()
	ix := s2.roots[0].ix.Load()
	id, ok := ix.lookup("added/one.txt")
	if !ok {
		t.Fatal("the rebuilt index does not list a file added before the restart")
	}
	if _, indexed := ix.fileMeta(id); !indexed {
		t.Fatal("the added file is listed but not indexed")
	}
	q := backend.GrepQuery{Pattern: "PM_RESUME", Paths: []string{root}, Mode: backend.Count}
	if got, want := result(t, s2, q), result(t, native.New(), q); got != want {
		t.Fatalf("after the rebuild: %s, want %s", got, want)
	}
}
