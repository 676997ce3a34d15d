package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/sandbox"
)

func newDir(t *testing.T) (string, *sandbox.Sandbox) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sb, errs := sandbox.New([]string{dir})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	return dir, sb
}

// pollUntil polls until n events have arrived in total.
func pollUntil(t *testing.T, w *Watcher, n int) ([]Event, int) {
	t.Helper()
	var all []Event
	dropped := 0
	deadline := time.Now().Add(time.Minute) // only bounds a hang
	for len(all)+dropped < n {
		if time.Now().After(deadline) {
			t.Fatalf("got %d events (+%d dropped), want %d: %v", len(all), dropped, n, all)
		}
		evs, d, _ := w.Poll()
		all, dropped = append(all, evs...), dropped+d
		time.Sleep(20 * time.Millisecond)
	}
	return all, dropped
}

// pollFor polls until an event that is wanted arrives and returns all
// events polled until then.
func pollFor(t *testing.T, w *Watcher, want func(Event) bool) []Event {
	t.Helper()
	var all []Event
	deadline := time.Now().Add(time.Minute) // only bounds a hang
	for {
		evs, _, _ := w.Poll()
		all = append(all, evs...)
		if slices.ContainsFunc(evs, want) {
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("the wanted event did not arrive; got %v", all)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// removed matches the removal of path.
func removed(path string) func(Event) bool {
	return func(e Event) bool { return e.Path == path && e.Op == Removed }
}

func TestQueueBoundAndDropped(t *testing.T) {
	dir, sb := newDir(t)
	p, _ := sb.Resolve(dir)
	// Poll only once all twelve events were queued: polling earlier would
	// drain the queue between batches.
	queued := make(chan int, 100)
	w, err := New(p, Options{MaxQueue: 5, Debounce: 20 * time.Millisecond, OnEvents: func(b []Event) { queued <- len(b) }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 12 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", i)), nil, 0o644)
	}
	for n := 0; n < 12; {
		select {
		case k := <-queued:
			n += k
		case <-time.After(time.Minute): // only bounds a hang
			t.Fatalf("%d events after a minute, want 12", n)
		}
	}
	evs, dropped, _ := w.Poll()
	if len(evs) > 5 || dropped < 7 {
		t.Errorf("%d events kept, %d dropped; want at most 5 kept", len(evs), dropped)
	}
	// The newest are kept.
	if last := evs[len(evs)-1]; !strings.HasSuffix(last.Path, "f11") {
		t.Errorf("last kept event %v, want f11", last)
	}
}

func TestFlatAndPatterns(t *testing.T) {
	dir, sb := newDir(t)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	p, _ := sb.Resolve(dir)
	w, err := New(p, Options{Flat: true, Patterns: []string{"*.go", "sub"}, Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Dirs() != 1 {
		t.Errorf("flat watch has %d directories", w.Dirs())
	}
	os.WriteFile(filepath.Join(dir, "sub", "deep.go"), nil, 0o644) // below: not watched
	os.WriteFile(filepath.Join(dir, "x.txt"), nil, 0o644)          // not matched
	os.WriteFile(filepath.Join(dir, "y.go"), nil, 0o644)
	// Events come in order: once z.go's arrives, any event for the files
	// above would have arrived too.
	os.WriteFile(filepath.Join(dir, "z.go"), nil, 0o644)
	evs, _ := pollUntil(t, w, 2)
	slices.SortFunc(evs, func(a, b Event) int { return strings.Compare(a.Path, b.Path) })
	if len(evs) != 2 || evs[0].Path != filepath.Join(dir, "y.go") || evs[0].Op != Created || evs[1].Path != filepath.Join(dir, "z.go") {
		t.Errorf("events %v, want only y.go and z.go created", evs)
	}
}

func TestRecursiveCountsAndSkipsGit(t *testing.T) {
	dir, sb := newDir(t)
	for _, d := range []string{"a/b/c", ".git/objects/aa", "d"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	p, _ := sb.Resolve(dir)
	w, err := New(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Dirs() != 5 { // ., a, a/b, a/b/c, d
		t.Errorf("watching %d directories, want 5", w.Dirs())
	}
	if _, err := New(p, Options{MaxDirs: 2}); err == nil || !strings.Contains(err.Error(), "more than 2 directories") {
		t.Errorf("MaxDirs: %v", err)
	}
}

// Directories that go away stop counting against MaxDirs, and a directory
// renamed into the tree is watched under its new name.
func TestRemovedDirectoriesAreForgotten(t *testing.T) {
	dir, sb := newDir(t)
	p, _ := sb.Resolve(dir)
	w, err := New(p, Options{MaxDirs: 3, Debounce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 5 {
		d := filepath.Join(dir, fmt.Sprintf("d%d", i))
		os.MkdirAll(filepath.Join(d, "x"), 0o755)
		pollUntil(t, w, 2)
		os.RemoveAll(d)
		pollFor(t, w, removed(d)) // d's own removal: it is forgotten by then
	}
	if _, _, err := w.Poll(); err != nil {
		t.Errorf("watch error after churn: %v", err)
	}
	if w.Dirs() != 1 {
		t.Errorf("watching %d directories after they were removed, want 1", w.Dirs())
	}
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	pollUntil(t, w, 1)
	os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	pollUntil(t, w, 2) // a renamed, b created
	os.WriteFile(filepath.Join(dir, "b", "f"), nil, 0o644)
	evs, _ := pollUntil(t, w, 1)
	if evs[0].Path != filepath.Join(dir, "b", "f") {
		t.Errorf("after the rename: %v", evs)
	}
}
