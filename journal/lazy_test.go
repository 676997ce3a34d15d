//go:build unix

package journal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/sandbox"
)

// TestLazyRecordsKeepTheirOrder: that nothing was where a command makes
// a file reaches the log a moment later (alone, after lazyWait), and
// always before a record that keeps content, which is written before
// its change goes on.
func TestLazyRecordsKeepTheirOrder(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "root")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "old.txt"), []byte("kept before"), 0o644)
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	defer sb.Close()
	s := New(Config{Dir: filepath.Join(base, "state"), MaxSize: 1 << 20}, nil)
	defer s.Close()
	st := s.Begin(Actor{Tool: "fs_bash", Command: "touch new1 new2 && echo >old.txt"}, sb.Roots())
	ctx := With(context.Background(), st)
	resolve := func(name string) *sandbox.Path {
		p, err := sb.Resolve(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
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
