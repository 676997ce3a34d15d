package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/sandbox"
)

// makeTree writes dirs×perDir small files under root/tree and returns the
// tree's path.
func makeTree(tb testing.TB, root string, dirs, perDir int) string {
	tb.Helper()
	tree := filepath.Join(root, "tree")
	for d := range dirs {
		dir := filepath.Join(tree, fmt.Sprintf("d%03d", d%100), fmt.Sprintf("e%04d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		for f := range perDir {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.txt", f)), []byte("x"), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return tree
}

func newSandbox(tb testing.TB) (string, *sandbox.Sandbox) {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		tb.Fatal(errs)
	}
	tb.Cleanup(func() { sb.Close() })
	return root, sb
}

func resolve(tb testing.TB, sb *sandbox.Sandbox, p string) *sandbox.Path {
	tb.Helper()
	r, err := sb.Resolve(p)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func TestSortedEscapedRows(t *testing.T) {
	root, sb := newSandbox(t)
	names := []string{"a.txt", "a/b", "a/c/d", "a-b", "tab\there", "new\nline", `back\slash`, "z"}
	for _, n := range names {
		p := filepath.Join(root, "t", n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(n), 0o644)
	}
	os.Symlink("a.txt", filepath.Join(root, "t", "link"))
	out := filepath.Join(root, "t", "cat.tsv") // inside the tree: not listed
	n, err := Create(context.Background(), resolve(t, sb, filepath.Join(root, "t")), resolve(t, sb, out), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(names) {
		t.Errorf("rows = %d, want %d", n, len(names))
	}
	data, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[0] != Header {
		t.Fatalf("header %q", lines[0])
	}
	var paths []string
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 4 {
			t.Fatalf("row %q has %d fields", l, len(f))
		}
		for _, ts := range f[2:] {
			if _, err := time.Parse(TimeFormat, ts); err != nil {
				t.Errorf("time %q: %v", ts, err)
			}
		}
		paths = append(paths, f[0])
	}
	want := []string{}
	esc := strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`)
	raw := append([]string(nil), names...)
	sort.Strings(raw)
	for _, n := range raw {
		want = append(want, esc.Replace(filepath.Join(root, "t", n)))
	}
	if strings.Join(paths, "|") != strings.Join(want, "|") {
		t.Errorf("rows\n%q\nwant\n%q", paths, want)
	}
	if got := fmt.Sprint(len(data) > 0 && strings.Contains(string(data), "a.txt\t5\t")); got != "true" {
		t.Errorf("size column missing:\n%s", data)
	}
}

func TestCancelledLeavesNothing(t *testing.T) {
	root, sb := newSandbox(t)
	tree := makeTree(t, root, 200, 50)
	out := filepath.Join(root, "cat.tsv")
	old := progressEvery
	progressEvery = 0
	defer func() { progressEvery = old }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	_, err := Create(ctx, resolve(t, sb, tree), resolve(t, sb, out), Options{Progress: func(rows int) {
		calls++
		if rows >= 2000 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if e.Name() != "tree" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if calls == 0 {
		t.Errorf("no progress")
	}
}

func TestOutputRace(t *testing.T) {
	root, sb := newSandbox(t)
	os.WriteFile(filepath.Join(root, "x"), nil, 0o644)
	out := filepath.Join(root, "cat.tsv")
	// The output appears while the catalog runs: it is not replaced.
	_, err := Create(context.Background(), resolve(t, sb, root), resolve(t, sb, out), Options{Progress: nil})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Create(context.Background(), resolve(t, sb, root), resolve(t, sb, out), Options{})
	var oe *OutputExistsError
	if !errors.As(err, &oe) || err.Error() != "Output file already exists: "+out {
		t.Fatalf("second run: %v", err)
	}
}

// BenchmarkCatalog100k catalogs a generated tree of 100,000 files
// (1,000 directories of 100). `make bench` reports it.
func BenchmarkCatalog100k(b *testing.B) {
	root, sb := newSandbox(b)
	tree := makeTree(b, root, 1000, 100)
	target := resolve(b, sb, tree)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		out := resolve(b, sb, filepath.Join(root, fmt.Sprintf("cat%d.tsv", i)))
		n, err := Create(context.Background(), target, out, Options{})
		if err != nil || n != 100000 {
			b.Fatalf("rows %d, err %v", n, err)
		}
		os.Remove(out.Abs)
	}
}
