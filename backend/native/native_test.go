package native

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/internal/test/goroot"
)

// grep runs q natively over root and returns the formatted result with
// root replaced by "R".
func grep(t *testing.T, root string, q backend.GrepQuery) string {
	t.Helper()
	if q.Paths == nil {
		q.Paths = []string{root}
	}
	r, err := backend.Run(context.Background(), New(), q, 0, 0)
	if err != nil {
		t.Fatalf("%+v: %v", q, err)
	}
	out := backend.Format(r, backend.FormatOptions{LineNumbers: true, Separators: q.Before+q.After > 0})
	return strings.ReplaceAll(out, root, "R")
}

// TestNativeIgnoreRules pins the exact file set of the fixture, so the
// ignore rules are checked even where rg is absent.
func TestNativeIgnoreRules(t *testing.T) {
	root := fixture(t)
	got := strings.Split(grep(t, root, backend.GrepQuery{Pattern: "foo"}), "\n")
	has := map[string]bool{}
	for _, g := range got {
		has[g] = true
	}
	// The .ignore above the repository is outside the root and the
	// repository, so it is not read: a.parentdot is searched.
	mustHave := []string{
		"R/main.go", "R/keep.log", "R/sub/drop2.log", "R/sub/top_only.txt", "R/sub/logs",
		"R/.hidden/h.txt", "R/.env", "R/space name.txt", "R/ünïcödé.md",
		"R/new\\nline.txt", "R/noeol.txt", "R/a.parentgit", "R/a.parentdot", "R/late_nul.txt", "R/sub/deeper/y.txt",
	}
	mustNot := []string{
		"R/drop.log", "R/top_only.txt", "R/build/out.txt", "R/logs/a.txt", "R/sub/anch.txt",
		"R/sub/x.tmp", "R/sub/deeper/x.tmp", "R/ignored_by_dot_ignore.txt", "R/rgignored.md",
		"R/bin.dat", "R/rg_reincluded.txt", "R/late_nul2.txt", "R/link_out/secret.txt", "R/link_file", "R/.git/HEAD",
		"R/.git/config", "R/#hash.txt", "R/trailing.txt",
	}
	joined := strings.Join(got, "\n")
	for _, p := range mustHave {
		if !has[p] && !strings.Contains(joined, p) {
			t.Errorf("missing %q", p)
		}
	}
	for _, p := range mustNot {
		if has[p] {
			t.Errorf("should be skipped: %q", p)
		}
	}
	// no_ignore brings the ignored text files back, not .git or symlinks.
	all := grep(t, root, backend.GrepQuery{Pattern: "foo", NoIgnore: true})
	for _, p := range []string{"R/drop.log", "R/build/out.txt", "R/sub/x.tmp", "R/rgignored.md", "R/a.parentdot"} {
		if !strings.Contains(all, p+"\n") && !strings.HasSuffix(all, p) {
			t.Errorf("no_ignore: missing %q", p)
		}
	}
	for _, p := range []string{".git/", "link_out", "link_file", "bin.dat"} {
		if strings.Contains(all, p) {
			t.Errorf("no_ignore: %q must still be skipped", p)
		}
	}
	// Without a .git dir, .gitignore does not count and .ignore does.
	nogit := filepath.Join(filepath.Dir(root), "nogit")
	if got := grep(t, nogit, backend.GrepQuery{Pattern: "foo"}); got != "R/kept.txt\nR/not_skipped.txt" {
		t.Errorf("nogit: %q", got)
	}
	// An unpacked tarball whose .gitignore says "/*" hides nothing.
	tarball := filepath.Join(filepath.Dir(root), "tarball")
	if got := grep(t, tarball, backend.GrepQuery{Pattern: "foo", Types: []string{"c"}}); got != "R/keep/b.c\nR/src/a.c\nR/top.c" {
		t.Errorf("tarball: %q", got)
	}
	// A .git file makes a nested repository: the outer .gitignore stops
	// there, the nested one counts.
	if got := grep(t, filepath.Join(root, "nested"), backend.GrepQuery{Pattern: "foo"}); got != "R/n.log" {
		t.Errorf("nested: %q", got)
	}
}

func TestNativeContentAndContext(t *testing.T) {
	root := fixture(t)
	ctxFile := filepath.Join(root, "ctx.txt")
	got := grep(t, root, backend.GrepQuery{Pattern: "match", Mode: backend.Content, Before: 1, After: 1, Paths: []string{ctxFile}})
	want := strings.Join([]string{
		"R/ctx.txt-4-ctx plain line",
		"R/ctx.txt:5:ctx match foo here",
		"R/ctx.txt-6-ctx plain line",
		"R/ctx.txt:7:ctx match foo here",
		"R/ctx.txt-8-ctx plain line",
		"--",
		"R/ctx.txt-14-ctx plain line",
		"R/ctx.txt:15:ctx match foo here",
		"R/ctx.txt:16:ctx match foo here",
		"R/ctx.txt-17-ctx plain line",
		"--",
		"R/ctx.txt-27-ctx plain line",
		"R/ctx.txt:28:ctx match foo here",
		"R/ctx.txt-29-ctx plain line",
	}, "\n")
	if got != want {
		t.Errorf("context:\n%s\nwant\n%s", got, want)
	}
	if got := grep(t, root, backend.GrepQuery{Pattern: "foo", Mode: backend.Content, Paths: []string{filepath.Join(root, "noeol.txt")}}); got != "R/noeol.txt:2:last foo" {
		t.Errorf("no final newline: %q", got)
	}
	if got := grep(t, root, backend.GrepQuery{Pattern: "foo", Mode: backend.Count, Paths: []string{ctxFile}}); got != "R/ctx.txt:5" {
		t.Errorf("count: %q", got)
	}
}

func TestNativeMultiline(t *testing.T) {
	root := fixture(t)
	multi := filepath.Join(root, "multi.txt") // start foo bar end foo baz
	cases := []struct {
		q    backend.GrepQuery
		want string
	}{
		{backend.GrepQuery{Pattern: `foo\nbar`, Multiline: true, Mode: backend.Content}, "R/multi.txt:2:foo\nR/multi.txt:3:bar"},
		{backend.GrepQuery{Pattern: `start.*end`, Multiline: true, Mode: backend.Content}, "R/multi.txt:1:start\nR/multi.txt:2:foo\nR/multi.txt:3:bar\nR/multi.txt:4:end"},
		{backend.GrepQuery{Pattern: `foo\n\w+`, Multiline: true, Mode: backend.Count}, "R/multi.txt:2"},
		{backend.GrepQuery{Pattern: `foo.bar`, Mode: backend.Count}, backend.NoMatches}, // . never crosses a line
	}
	for _, c := range cases {
		c.q.Paths = []string{multi}
		if got := grep(t, root, c.q); got != c.want {
			t.Errorf("%q: got\n%s\nwant\n%s", c.q.Pattern, got, c.want)
		}
	}
}

func TestNativeBinary(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"text.txt":  "needle\n",
		"early.bin": "needle\x00\n",
		"late.txt":  "needle first\n" + strings.Repeat("x\n", 70000) + "needle late\n\x00",
	})
	if got := grep(t, root, backend.GrepQuery{Pattern: "needle"}); got != "R/late.txt\nR/text.txt" {
		t.Errorf("files: %q", got)
	}
	if got := grep(t, root, backend.GrepQuery{Pattern: "needle", Mode: backend.Content}); got != "R/late.txt:1:needle first\nR/text.txt:1:needle" {
		t.Errorf("content: %q", got)
	}
	if got := grep(t, root, backend.GrepQuery{Pattern: "needle", Mode: backend.Count}); got != "R/text.txt:1" {
		t.Errorf("count (rg squashes binary files): %q", got)
	}
	if got := grep(t, root, backend.GrepQuery{Pattern: "needle", Paths: []string{filepath.Join(root, "early.bin")}}); got != backend.NoMatches {
		t.Errorf("explicit binary: %q", got)
	}
}

func TestNativeLargeFileMapped(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789\n", mmapMin/37+1000) + "the end\n"
	writeTree(t, root, map[string]string{"big.txt": big})
	if got := grep(t, root, backend.GrepQuery{Pattern: "the end", Mode: backend.Content}); !strings.HasSuffix(got, ":the end") {
		t.Errorf("big file: %q", got)
	}
}

func TestNativeTypesAndGlobs(t *testing.T) {
	root := fixture(t)
	types := filepath.Join(root, "types")
	if got := grep(t, root, backend.GrepQuery{Pattern: "foo", Types: []string{"make", "docker"}, Paths: []string{types}}); got != "R/types/Dockerfile\nR/types/Makefile" {
		t.Errorf("types: %q", got)
	}
	if got := grep(t, root, backend.GrepQuery{Pattern: "foo", Globs: []string{"*.{c,h}"}, Paths: []string{types}}); got != "R/types/g.c\nR/types/i.h" {
		t.Errorf("glob alternation: %q", got)
	}
	if got := grep(t, root, backend.GrepQuery{Pattern: "foo", Globs: []string{"!*.go", "!*.txt", "!*.md", "!types/", "!sub/", "!*.log", "!.*", "!*.parentgit"}}); strings.Contains(got, ".go") || strings.Contains(got, "types/") {
		t.Errorf("excludes: %q", got)
	}
}

func TestNativeGlob(t *testing.T) {
	root := fixture(t)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(root, "main.go"), old, old)
	var got []string
	var mt time.Time
	err := New().Glob(context.Background(), backend.GlobQuery{Pattern: "**/*.go", Paths: []string{root}}, func(f backend.File) error {
		got = append(got, strings.TrimPrefix(f.Path, root))
		if strings.HasSuffix(f.Path, "/main.go") {
			mt = f.ModTime
			if f.Size == 0 {
				t.Error("size missing")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	if strings.Join(got, " ") != "/deep/nested/dir/file.go /main.go" {
		t.Errorf("glob: %v", got)
	}
	if !mt.Equal(old.Truncate(time.Second)) && mt.Sub(old).Abs() > time.Second {
		t.Errorf("mtime %v, want %v", mt, old)
	}
}

// TestNativeCancelAndProgress: a search sends progress (the first file at
// once, then at most every 100 ms) and a cancel ends it with what it found,
// marked partial. It waits on events (two progress reports, then the
// search's return), never on how fast the machine is; the only time bound
// is one against a hang.
func TestNativeCancelAndProgress(t *testing.T) {
	root := goroot.Dir(t)
	var calls, last atomic.Int64
	var increasing atomic.Bool
	increasing.Store(true)
	twice := make(chan struct{})
	q := backend.GrepQuery{Pattern: `(\w+\s*){5}x`, Mode: backend.Count, Paths: []string{root},
		Progress: func(n int64) {
			if n <= last.Load() {
				increasing.Store(false)
			}
			last.Store(n)
			if calls.Add(1) == 2 {
				close(twice)
			}
		}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		r   *backend.Result
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		r, err := backend.Run(ctx, New(), q, 0, 10)
		done <- result{r, err}
	}()
	select {
	case <-twice:
	case res := <-done:
		t.Fatalf("search of GOROOT ended before two progress reports: %+v", res)
	}
	cancel()
	var res result
	select {
	case res = <-done:
	case <-time.After(time.Minute):
		t.Fatal("cancelled native search did not return within a minute")
	}
	elapsed := time.Since(start)
	if res.err != nil {
		t.Fatal(res.err)
	}
	if !res.r.Partial {
		t.Error("not marked partial")
	}
	// At most one report per 100 ms after the first, whatever the load.
	if n := calls.Load(); n > int64(elapsed/(100*time.Millisecond))+1 || !increasing.Load() {
		t.Errorf("progress: %d calls in %v, last %d, increasing %v", n, elapsed, last.Load(), increasing.Load())
	}
}
