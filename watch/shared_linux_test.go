package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/procfd"
)

// TestWatchersShareOneInotifyInstance starts 200 watchers: the process
// must hold one inotify descriptor, each watcher must still get its own
// events, and closing them all must release it.
func TestWatchersShareOneInotifyInstance(t *testing.T) {
	dir, sb := newDir(t)
	var ws []*Watcher
	defer func() {
		for _, w := range ws {
			w.Close()
		}
	}()
	for i := range 200 {
		d := filepath.Join(dir, fmt.Sprintf("d%03d", i%100)) // two watchers on each directory
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		p, _ := sb.Resolve(d)
		w, err := New(p, Options{Flat: true})
		if err != nil {
			t.Fatalf("watcher %d: %v", i, err)
		}
		ws = append(ws, w)
	}
	if n := procfd.Inotify(t); n != 1 {
		t.Fatalf("%d inotify descriptors for 200 watchers, want 1", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "d007", "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, w := range []*Watcher{ws[7], ws[107]} {
		evs, _ := pollUntil(t, w, 1)
		if evs[0].Path != filepath.Join(dir, "d007", "x") {
			t.Fatalf("events = %v", evs)
		}
	}
	if evs, _, _ := ws[8].Poll(); len(evs) != 0 {
		t.Fatalf("another directory's watcher got %v", evs)
	}
	ws[107].Close() // the other watcher of d007 keeps its watch
	if err := os.WriteFile(filepath.Join(dir, "d007", "y"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if evs, _ := pollUntil(t, ws[7], 1); evs[0].Path != filepath.Join(dir, "d007", "y") {
		t.Fatalf("events after the other watcher closed = %v", evs)
	}
	for _, w := range ws {
		w.Close()
	}
	ws = nil
	if n := procfd.Inotify(t); n != 0 {
		t.Fatalf("%d inotify descriptors left after every watcher closed", n)
	}
}
