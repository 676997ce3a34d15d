package native

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/driver"
	"github.com/fsmcp/fsmcp/internal/test/goroot"
)

// parityQuery is one row of the parity table; Paths are relative to the
// tree under test ("" = the tree itself).
type parityQuery struct {
	name  string
	q     backend.GrepQuery
	paths []string
}

func C(q backend.GrepQuery) backend.GrepQuery { q.Mode = backend.Content; return q }

// parityTable: every query is run through the rg and the native backend.
var parityTable = []parityQuery{
	{name: "literal files", q: backend.GrepQuery{Pattern: "foo"}},
	{name: "literal content", q: C(backend.GrepQuery{Pattern: "foo"})},
	{name: "literal count", q: backend.GrepQuery{Pattern: "foo", Mode: backend.Count}},
	{name: "regex content", q: C(backend.GrepQuery{Pattern: `fo+\s\w+`})},
	{name: "regex alternation", q: C(backend.GrepQuery{Pattern: `keep|drop|hidden`})},
	{name: "regex anchors", q: C(backend.GrepQuery{Pattern: `^foo$`})},
	{name: "regex line end", q: C(backend.GrepQuery{Pattern: `foo$`})},
	{name: "regex class no literal", q: C(backend.GrepQuery{Pattern: `[0-9]{3,}`})},
	{name: "regex negated class stays on line", q: C(backend.GrepQuery{Pattern: `foo[^x]bar`})},
	{name: "word boundary", q: C(backend.GrepQuery{Pattern: `\bfoo\b`})},
	{name: "unicode word class", q: C(backend.GrepQuery{Pattern: `caf\w`})},
	{name: "unicode digit/space", q: C(backend.GrepQuery{Pattern: `\d+\s\d+`})},
	{name: "ignore case", q: C(backend.GrepQuery{Pattern: "FOO", IgnoreCase: true})},
	{name: "ignore case unicode", q: C(backend.GrepQuery{Pattern: "straße", IgnoreCase: true})},
	{name: "ignore case regex", q: backend.GrepQuery{Pattern: `func\s+MAIN`, IgnoreCase: true, Mode: backend.Count}},
	{name: "case sensitive", q: C(backend.GrepQuery{Pattern: "Foo"})},
	{name: "fixed strings", q: C(backend.GrepQuery{Pattern: "x * 2", FixedStrings: true})},
	{name: "fixed strings with regex chars", q: C(backend.GrepQuery{Pattern: "foo.bar", FixedStrings: true})},
	{name: "pattern looks like a flag", q: C(backend.GrepQuery{Pattern: "--pre=sh"})},
	{name: "pattern -e", q: backend.GrepQuery{Pattern: "-e"}},
	{name: "empty pattern count", q: backend.GrepQuery{Pattern: "", Mode: backend.Count}},
	{name: "multiline", q: C(backend.GrepQuery{Pattern: `foo\nbar`, Multiline: true})},
	{name: "multiline dotall", q: C(backend.GrepQuery{Pattern: `start.*end`, Multiline: true})},
	{name: "multiline count", q: backend.GrepQuery{Pattern: `foo\n\w+`, Multiline: true, Mode: backend.Count}},
	// No newline in any match: rg counts lines even under -U.
	{name: "multiline count no newline", q: backend.GrepQuery{Pattern: `o`, Multiline: true, Mode: backend.Count}},
	{name: "multiline count no newline, unicode", q: backend.GrepQuery{Pattern: `\p{Greek}`, Multiline: true, Mode: backend.Count}},
	// A pattern that can match a newline: rg reads the file whole and
	// takes it as binary only for a NUL in its first 64 KiB (late_nul.txt
	// has one at 116 KB, and matches after it).
	{name: "multiline count newline class", q: backend.GrepQuery{Pattern: `o\s`, Multiline: true, Mode: backend.Count}},
	{name: "multiline count dot", q: backend.GrepQuery{Pattern: `o.`, Multiline: true, Mode: backend.Count}},
	{name: "multiline content late NUL", q: backend.GrepQuery{Pattern: `foo\s+after`, Multiline: true, Mode: backend.Content}},
	{name: "multiline files", q: backend.GrepQuery{Pattern: `bar\r?\n`, Multiline: true}},
	{name: "context C2", q: C(backend.GrepQuery{Pattern: "match", Before: 2, After: 2})},
	{name: "context A1", q: C(backend.GrepQuery{Pattern: "foo", After: 1})},
	{name: "context B3", q: C(backend.GrepQuery{Pattern: "match", Before: 3})},
	{name: "context multiline", q: C(backend.GrepQuery{Pattern: `foo\nbar`, Multiline: true, Before: 1, After: 1})},
	{name: "glob include", q: backend.GrepQuery{Pattern: "foo", Globs: []string{"*.txt"}}},
	{name: "glob exclude", q: backend.GrepQuery{Pattern: "foo", Globs: []string{"!*.txt"}}},
	{name: "glob include+exclude", q: backend.GrepQuery{Pattern: "foo", Globs: []string{"*.txt", "!sub/**"}}},
	{name: "glob with slash", q: backend.GrepQuery{Pattern: "foo", Globs: []string{"types/*"}}},
	{name: "glob overrides gitignore", q: backend.GrepQuery{Pattern: "foo", Globs: []string{"*.log"}}},
	{name: "glob cannot reach .git", q: backend.GrepQuery{Pattern: "foo", Globs: []string{".git/*", "HEAD"}}},
	{name: "glob dir only", q: backend.GrepQuery{Pattern: "foo", Globs: []string{"!sub/"}}},
	{name: "type go", q: backend.GrepQuery{Pattern: "foo", Types: []string{"go"}}},
	{name: "types c cpp make docker", q: backend.GrepQuery{Pattern: "foo", Types: []string{"c", "cpp", "make", "docker"}}},
	{name: "types sh js vue svelte", q: backend.GrepQuery{Pattern: "foo", Types: []string{"sh", "js", "vue", "svelte"}}},
	{name: "type with glob override", q: backend.GrepQuery{Pattern: "foo", Types: []string{"go"}, Globs: []string{"*.md"}}},
	{name: "no ignore", q: backend.GrepQuery{Pattern: "foo", NoIgnore: true}},
	{name: "no ignore count", q: backend.GrepQuery{Pattern: "foo", NoIgnore: true, Mode: backend.Count}},
	{name: "subdir path", q: backend.GrepQuery{Pattern: "foo"}, paths: []string{"sub"}},
	{name: "explicit file paths", q: C(backend.GrepQuery{Pattern: "foo"}), paths: []string{"main.go", "drop.log", "bin.dat"}},
	{name: "explicit file ignores type and glob", q: C(backend.GrepQuery{Pattern: "foo", Types: []string{"py"}, Globs: []string{"!*.go"}}), paths: []string{"main.go", "types/a.py"}},
	{name: "explicit ignored file", q: backend.GrepQuery{Pattern: "foo"}, paths: []string{"drop.log", "build"}},
	{name: "no git dir", q: backend.GrepQuery{Pattern: "foo"}, paths: []string{"../nogit"}},
	{name: "tarball gitignore /*", q: backend.GrepQuery{Pattern: "foo"}, paths: []string{"../tarball"}},
	{name: "tarball subdir", q: backend.GrepQuery{Pattern: "foo"}, paths: []string{"../tarball/src"}},
	{name: "above the repository", q: backend.GrepQuery{Pattern: "foo", Mode: backend.Count}, paths: []string{".."}},
	{name: "inside a nested repository", q: backend.GrepQuery{Pattern: "foo"}, paths: []string{"nested"}},
	{name: "type c over tarball", q: backend.GrepQuery{Pattern: "foo", Types: []string{"c"}}, paths: []string{"../tarball"}},
	{name: "types ts py", q: backend.GrepQuery{Pattern: "foo", Types: []string{"ts", "py"}}},
	{name: "two paths", q: backend.GrepQuery{Pattern: "foo", Mode: backend.Count}, paths: []string{"sub", "types"}},
	{name: "dot and invalid utf8", q: C(backend.GrepQuery{Pattern: `x.y|caf.|start [^a] end`})},
	{name: "multiline dot and invalid utf8", q: C(backend.GrepQuery{Pattern: `start.*end`, Multiline: true})},
	{name: "named group", q: C(backend.GrepQuery{Pattern: `(?<word>foo)[-_]bar`})},
	{name: "quoted literal", q: C(backend.GrepQuery{Pattern: `\Qfoo.bar\E|x9`})},
	{name: "crlf end", q: C(backend.GrepQuery{Pattern: `bar\r$`})},
	{name: "no match", q: backend.GrepQuery{Pattern: "zzzznotthere"}},
}

// runBoth runs q through rg and native and returns both formatted
// results.
func runBoth(t *testing.T, rg backend.Searcher, q backend.GrepQuery, offset, limit int) (string, string) {
	t.Helper()
	var out [2]string
	for i, s := range []backend.Searcher{rg, New()} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // each its own
		r, err := backend.Run(ctx, s, q, offset, limit)
		cancel()
		if err != nil {
			out[i] = "error: " + err.Error()
			continue
		}
		out[i] = fmt.Sprintf("total=%d files=%d partial=%v skipped=%d\n", r.Total, r.Files, r.Partial, r.TooLong) +
			backend.Format(r, backend.FormatOptions{LineNumbers: true, Separators: q.Before > 0 || q.After > 0})
	}
	return out[0], out[1]
}

// firstDiff describes the first differing line of a and b.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		} else {
			x = "<end>"
		}
		if i < len(bl) {
			y = bl[i]
		} else {
			y = "<end>"
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  rg:     %q\n  native: %q", i+1, x, y)
		}
	}
	return ""
}

func runParity(t *testing.T, root string, table []parityQuery, limit int) {
	forEachRG(t, func(t *testing.T, rg *driver.RG) { runParityWith(t, rg, root, table, limit) })
}

func runParityWith(t *testing.T, rg *driver.RG, root string, table []parityQuery, limit int) {
	for _, pq := range table {
		t.Run(pq.name, func(t *testing.T) {
			q := pq.q
			if len(pq.paths) == 0 {
				q.Paths = []string{root}
			}
			for _, p := range pq.paths {
				q.Paths = append(q.Paths, filepath.Clean(filepath.Join(root, p)))
			}
			a, b := runBoth(t, rg, q, 0, limit)
			if strings.Contains(a, "partial=true") || strings.Contains(b, "partial=true") {
				t.Fatalf("query %+v timed out (rg: %.60s, native: %.60s); nothing to compare", pq.q, a, b)
			}
			if a != b {
				t.Errorf("query %+v: rg and native differ at %s", pq.q, firstDiff(a, b))
			}
			if strings.HasPrefix(a, "error:") {
				t.Errorf("query %+v failed: %s", pq.q, a)
			}
		})
	}
}

func TestParityFixture(t *testing.T) {
	runParity(t, fixture(t), parityTable, 0)
}

func TestParityGoroot(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the GOROOT parity run in -short mode")
	}
	src := goroot.Src(t)
	table := append([]parityQuery{
		{name: "goroot func regex", q: C(backend.GrepQuery{Pattern: `func \(\w+ \*\w+\) Close\(\)`})},
		{name: "goroot errorf -i", q: backend.GrepQuery{Pattern: `errorf`, IgnoreCase: true, Mode: backend.Count}},
		{name: "goroot context", q: C(backend.GrepQuery{Pattern: `TODO\(rsc\)`, Before: 2, After: 1})},
		{name: "goroot multiline", q: backend.GrepQuery{Pattern: `\}\n\nfunc Test\w+`, Multiline: true, Mode: backend.Count}},
		{name: "goroot unicode", q: backend.GrepQuery{Pattern: `[αβγδ]\w+`, Mode: backend.Count}},
	}, treeIndependent(parityTable)...)
	// A bounded page keeps memory small while Total still counts all.
	runParity(t, src, table, 20000)
}

// treeIndependent drops the rows that name fixture paths.
func treeIndependent(table []parityQuery) []parityQuery {
	var out []parityQuery
	for _, pq := range table {
		if len(pq.paths) == 0 {
			out = append(out, pq)
		}
	}
	return out
}

// TestParityErrors: a pattern or type one backend rejects, both reject
// with the same error.
func TestParityErrors(t *testing.T) {
	forEachRG(t, testParityErrors)
}

func testParityErrors(t *testing.T, rg *driver.RG) {
	root := fixture(t)
	for _, q := range []backend.GrepQuery{
		{Pattern: "foo(?=bar)"}, {Pattern: "(?<!a)b"}, {Pattern: `(a)\1`}, {Pattern: "a\nb"},
		{Pattern: "(unclosed"}, {Pattern: "x", Types: []string{"nosuchtype"}}, {Pattern: "[z-a]"},
	} {
		q.Paths = []string{root}
		a, b := runBoth(t, rg, q, 0, 0)
		if a != b || !strings.HasPrefix(a, "error:") {
			t.Errorf("%q: rg: %s\nnative: %s", q.Pattern, a, b)
		}
	}
}

// TestParityGlob compares fs_glob listings.
func TestParityGlob(t *testing.T) {
	forEachRG(t, testParityGlob)
}

func testParityGlob(t *testing.T, rg *driver.RG) {
	root := fixture(t)
	for _, tc := range []struct {
		pattern  string
		noIgnore bool
		path     string // relative to root; "" is root
	}{
		{"**/*", false, ""}, {"**/*.go", false, ""}, {"*.txt", false, ""}, {"sub/**", false, ""},
		{"**/*.log", false, ""}, {"**/*", true, ""}, {"types/*.{c,h}", false, ""}, {".git/**", false, ""},
		{"**/.env", false, ""}, {"nosuchdir/**", false, ""}, {"**/*", false, ".."},
		{"**/*.c", false, "../tarball"}, {"**/*.txt", false, "../nogit"}, {"**/*", false, "nested"},
	} {
		q := backend.GlobQuery{Pattern: tc.pattern, Paths: []string{filepath.Join(root, tc.path)}, NoIgnore: tc.noIgnore}
		list := func(s backend.Searcher) string {
			var paths []string
			err := s.Glob(context.Background(), q, func(f backend.File) error {
				paths = append(paths, f.Path)
				return nil
			})
			if err != nil {
				return "error: " + err.Error()
			}
			sort.Strings(paths)
			return strings.Join(paths, "\n")
		}
		a, b := list(rg), list(New())
		if a != b {
			t.Errorf("glob %q in %q (no_ignore=%v): rg and native differ at %s", tc.pattern, tc.path, tc.noIgnore, firstDiff(a, b))
		}
		if f, err := driver.NewFind(New()); err == nil {
			if c := list(f); c != b {
				t.Errorf("glob %q in %q (no_ignore=%v): find and native differ at %s", tc.pattern, tc.path, tc.noIgnore, firstDiff(c, b))
			}
		}
	}
}

// TestParityTree runs the table over any tree named by FSMCP_PARITY_TREE
// (e.g. a checkout with many nested ignore files).
func TestParityTree(t *testing.T) {
	dir := os.Getenv("FSMCP_PARITY_TREE")
	if dir == "" {
		t.Skip("set FSMCP_PARITY_TREE to a directory to run the parity table over it")
	}
	runParity(t, dir, treeIndependent(parityTable), 20000)
}
