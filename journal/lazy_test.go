//go:build unix

package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/sandbox"
)

// journalOver returns an empty root, its sandbox (closed with the
// test) and a journal over it.
func journalOver(t *testing.T) (string, *sandbox.Sandbox, *Set) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "root")
	os.MkdirAll(root, 0o755)
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	return root, sb, New(Config{Dir: filepath.Join(base, "state"), MaxSize: 1 << 20}, nil)
}

// resolverIn resolves a name in root through sb, failing the test where
// it cannot.
func resolverIn(t *testing.T, sb *sandbox.Sandbox, root string) func(name string) *sandbox.Path {
	return func(name string) *sandbox.Path {
		p, err := sb.Resolve(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// TestLazyRecordsKeepTheirOrder: that nothing was where a command makes
// a file reaches the log a moment later (alone, after lazyWait), and
// always before a record that keeps content, which is written before
// its change goes on.
func TestLazyRecordsKeepTheirOrder(t *testing.T) {
	root, sb, s := journalOver(t)
	defer s.Close()
	os.WriteFile(filepath.Join(root, "old.txt"), []byte("kept before"), 0o644)
	st := s.Begin(Actor{Tool: "fs_bash", Command: "touch new1 new2 && echo >old.txt"}, sb.Roots())
	ctx := With(context.Background(), st)
	resolve := resolverIn(t, sb, root)
	if err := Keep(ctx, resolve("new1")); err != nil {
		t.Fatal(err)
	}
	log := st.log.Name()
	read := func() string { b, _ := os.ReadFile(log); return string(b) }
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(read(), `"p":"new1"`); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the creation's record never reached the log:\n%s", read())
		}
	}
	Keep(ctx, resolve("new2"))
	Keep(ctx, resolve("old.txt"))
	got := read() // written before Keep returned
	i, j := strings.Index(got, `"p":"new2"`), strings.Index(got, `"p":"old.txt"`)
	if i < 0 || j < 0 || i > j || !strings.Contains(got[j:], `"data":`) {
		t.Fatalf("want new2's record, then old.txt's with its content, in the log now:\n%s", got)
	}
	st.End(ctx)
	if n := strings.Count(read(), `"p":"new2"`); n != 2 { // its op and what it holds at the end
		t.Fatalf("new2 is in the log %d times, want 2:\n%s", n, read())
	}
}

// TestManyFinalsReadInParallel: a step's end reads a command's
// thousands of paths with several goroutines; each path's state is the
// one it holds, in the order the step met them.
func TestManyFinalsReadInParallel(t *testing.T) {
	root, sb, s := journalOver(t)
	defer s.Close()
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	st := s.Begin(Actor{Tool: "fs_bash", Command: "many"}, sb.Roots())
	ctx := With(context.Background(), st)
	const n = 3 * finalsPerWorker
	names := make([]string, n)
	for i := range n {
		names[i] = filepath.Join([]string{".", "a", "a/b"}[i%3], fmt.Sprintf("f%d", i))
		p, err := sb.Resolve(filepath.Join(root, names[i]))
		if err != nil {
			t.Fatal(err)
		}
		Keep(ctx, p)
		os.WriteFile(filepath.Join(root, names[i]), make([]byte, i), 0o600)
	}
	st.End(ctx)
	store, _ := s.Store(root)
	entries, err := store.Entries()
	if err != nil || len(entries) != 1 {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
	var files []Final
	for _, f := range entries[0].After {
		if f.Image.Type == File {
			files = append(files, f)
		}
	}
	if len(files) != n {
		t.Fatalf("%d files in the step's end, want %d", len(files), n)
	}
	for i, f := range files {
		if f.Path != filepath.ToSlash(filepath.Clean(names[i])) || f.Image.Size != int64(i) || f.Image.Mode != 0o600 {
			t.Fatalf("final %d: %s size %d mode %o, want %s size %d mode 600", i, f.Path, f.Image.Size, f.Image.Mode, names[i], i)
		}
	}
}

// TestCloseWritesLazyRecords: a step still open when the server shuts
// down (a background process's) has its lazy records written by Close,
// and an ended step leaves nothing registered.
func TestCloseWritesLazyRecords(t *testing.T) {
	root, sb, s := journalOver(t)
	ended := s.Begin(Actor{Tool: "fs_bash", Command: "touch a"}, sb.Roots())
	ctx := With(context.Background(), ended)
	p, _ := sb.Resolve(filepath.Join(root, "a"))
	Keep(ctx, p)
	ended.End(ctx)
	open := s.Begin(Actor{Tool: "fs_bash (background)", Command: "touch b &"}, sb.Roots())
	ctx = With(context.Background(), open)
	p, _ = sb.Resolve(filepath.Join(root, "b"))
	Keep(ctx, p)
	s.Close()
	if b, _ := os.ReadFile(open.log.Name()); !strings.Contains(string(b), `"p":"b"`) {
		t.Fatalf("the open step's record is not in the log after Close:\n%s", b)
	}
	if len(s.lazy) != 0 {
		t.Fatalf("%d steps still registered", len(s.lazy))
	}
}

// TestKeptWholeIsTheLastCaptureOnly: KeptWhole names the path the step's
// last capture kept whole, and no other: not one kept before another
// capture, not one only its metadata was kept of, not one a removal
// (or a rename above it) took, and not another step's.
func TestKeptWholeIsTheLastCaptureOnly(t *testing.T) {
	root, sb, s := journalOver(t)
	defer s.Close()
	os.WriteFile(filepath.Join(root, "old.txt"), []byte("kept before"), 0o644)
	st := s.Begin(Actor{Tool: "fs_bash", Command: "tar x"}, sb.Roots())
	ctx := With(context.Background(), st)
	resolve := resolverIn(t, sb, root)
	a, b := resolve("a"), resolve("old.txt")
	Keep(ctx, a)
	if !KeptWhole(ctx, a.Abs) || KeptWhole(ctx, b.Abs) || KeptWhole(ctx, "") {
		t.Fatal("after Keep(a), KeptWhole should name a only")
	}
	Meta(ctx, b)
	if KeptWhole(ctx, a.Abs) || KeptWhole(ctx, b.Abs) {
		t.Fatal("after Meta(old.txt), no path is kept whole last")
	}
	Keep(ctx, b)
	Gone(ctx, b)
	if KeptWhole(ctx, b.Abs) {
		t.Fatal("a removal's capture still counted as keeping old.txt whole")
	}
	other := With(context.Background(), s.Begin(Actor{Tool: "fs_bash", Command: "chmod"}, sb.Roots()))
	Keep(ctx, a)
	if KeptWhole(other, a.Abs) {
		t.Fatal("another step took a as kept whole")
	}
	st.End(ctx)
}
