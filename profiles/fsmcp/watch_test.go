package fsmcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/toolkit"
)

// updates collects the URIs of notifications/resources/updated a client
// receives.
type updates chan string

func (u updates) option() testenv.Option {
	return testenv.WithClient(func(o *mcp.ClientOptions) {
		o.ResourceUpdatedHandler = func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			u <- req.Params.URI
		}
	})
}

// await waits for the URI of abs.
func (u updates) await(t *testing.T, abs string) {
	t.Helper()
	want := toolkit.FileURI(abs)
	timeout := time.After(time.Minute) // only bounds a hang
	var seen []string
	for {
		select {
		case uri := <-u:
			if uri == want {
				return
			}
			seen = append(seen, uri)
		case <-timeout:
			t.Fatalf("no notification for %s; got %v", want, seen)
		}
	}
}

var watcherID = regexp.MustCompile(`as watcher (w\d+)`)

func startWatch(t *testing.T, e *testenv.Env, args map[string]any) string {
	t.Helper()
	out := e.OK("fs_watch", args)
	m := watcherID.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no watcher id in %q", out)
	}
	return m[1]
}

func TestWatchSeesFileInNewSubdirectory(t *testing.T) {
	t.Run("newest protocol", func(t *testing.T) { testWatchNewSubdirectory(t) })
	t.Run("2025-11-25", func(t *testing.T) { testWatchNewSubdirectory(t, testenv.WithLegacyProtocol()) })
}

func testWatchNewSubdirectory(t *testing.T, opts ...testenv.Option) {
	u := make(updates, 100)
	e := testenv.New(t, append(opts, u.option())...)
	id := startWatch(t, e, map[string]any{"path": e.Root})
	e.Write("root/new/deeper/f.txt", "x")
	f := filepath.Join(e.Root, "new", "deeper", "f.txt")
	u.await(t, f)

	// A file written later in the new directory: the directory is watched,
	// since the watch is added before the directory is scanned for f.
	e.Write("root/new/deeper/g.txt", "y")
	g := filepath.Join(e.Root, "new", "deeper", "g.txt")
	u.await(t, g)

	// Poll has the same events, once.
	out := e.OK("fs_watch", map[string]any{"action": "poll", "watcher_id": id})
	if !strings.Contains(out, "created\t"+f) || !strings.Contains(out, g) {
		t.Errorf("poll:\n%s", out)
	}
	if again := e.OK("fs_watch", map[string]any{"action": "poll", "watcher_id": id}); !strings.Contains(again, "No new events") {
		t.Errorf("second poll:\n%s", again)
	}
	e.OK("fs_watch", map[string]any{"action": "stop", "watcher_id": id})
	e.Fails("fs_watch", map[string]any{"action": "poll", "watcher_id": id}, "no watcher "+id)
}

func TestWatchPatternsAndModify(t *testing.T) {
	u := make(updates, 100)
	e := testenv.New(t, u.option())
	id := startWatch(t, e, map[string]any{"path": e.Root, "patterns": []string{"*.go"}})
	e.Write("root/sub/skip.txt", "x")
	e.Write("root/sub/keep.go", "x")
	// skip.txt was written first: had it been kept, it would have been
	// queued no later than keep.go, and the queue is filled before the
	// notification is sent.
	u.await(t, filepath.Join(e.Root, "sub", "keep.go"))
	out := e.OK("fs_watch", map[string]any{"action": "poll", "watcher_id": id})
	if strings.Contains(out, "skip.txt") {
		t.Errorf("pattern not applied:\n%s", out)
	}
	os.WriteFile(e.Path("root/sub/keep.go"), []byte("changed"), 0o644)
	// A notification may still trail the first write (its create and write
	// can land in two batches), so poll until the change shows.
	modified := "modified\t" + filepath.Join(e.Root, "sub", "keep.go")
	var polled string
	for deadline := time.Now().Add(time.Minute); !strings.Contains(polled, modified); { // only bounds a hang
		if time.Now().After(deadline) {
			t.Fatalf("modify not seen:\n%s", polled)
		}
		polled += e.OK("fs_watch", map[string]any{"action": "poll", "watcher_id": id})
		time.Sleep(10 * time.Millisecond)
	}
	os.Remove(e.Path("root/sub/keep.go"))
	u.await(t, filepath.Join(e.Root, "sub", "keep.go"))
}

func TestWatchErrors(t *testing.T) {
	e := testenv.New(t)
	e.Fails("fs_watch", map[string]any{"path": filepath.Join(e.Root, "a.txt")}, "is not a directory")
	e.Fails("fs_watch", map[string]any{"path": filepath.Join(e.Root, "nope")}, "file not found")
	e.Fails("fs_watch", map[string]any{"path": e.Root, "patterns": []string{"[x"}}, "not a valid glob")
	e.Fails("fs_watch", map[string]any{"path": filepath.Join(e.Root, "dirlink")}, "outside allowed directories")
	e.Fails("fs_watch", map[string]any{"path": filepath.Join(e.Base, "root_evil")}, "outside allowed directories")
	e.Fails("fs_watch", map[string]any{"path": e.Root + "/../outside"}, "outside allowed directories")
	e.Fails("fs_watch", map[string]any{"action": "poll", "watcher_id": "w99"}, "no watcher w99")
	e.Fails("fs_watch", map[string]any{"action": "poll"}, "watcher_id is required")
	e.Fails("fs_watch", map[string]any{"action": "explode", "watcher_id": "w1"}, "action must be")
	for i := range 8 {
		startWatch(t, e, map[string]any{"path": e.Root})
		_ = i
	}
	e.Fails("fs_watch", map[string]any{"path": e.Root}, fmt.Sprintf("already has %d watches", 8))
	e.OK("fs_watch", map[string]any{"action": "stop", "watcher_id": "w3"})
	startWatch(t, e, map[string]any{"path": e.Root})
}

// A watch on a tree whose links lead out never reports what happens outside.
func TestWatchStaysInside(t *testing.T) {
	u := make(updates, 100)
	e := testenv.New(t, u.option())
	id := startWatch(t, e, map[string]any{"path": e.Root})
	e.Write("outside/new-secret", "x")
	e.Write("root/marker", "x")
	// Ordering: an event from outside, had the watch followed the link,
	// would have come through the same inotify queue before marker's, and
	// the poll queue is filled before the notification is sent.
	u.await(t, filepath.Join(e.Root, "marker"))
	if out := e.OK("fs_watch", map[string]any{"action": "poll", "watcher_id": id}); strings.Contains(out, "secret") {
		t.Errorf("outside change reported:\n%s", out)
	}
}

// inotifyFDs counts this process's inotify instances.
func inotifyFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, e := range ents {
		if l, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// Watchers end with their session.
func TestWatchEndsWithSession(t *testing.T) {
	e := testenv.New(t)
	// Let the watchers of earlier tests' sessions finish closing.
	for deadline := time.Now().Add(time.Minute); inotifyFDs(t) > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	before := inotifyFDs(t)
	startWatch(t, e, map[string]any{"path": e.Root})
	startWatch(t, e, map[string]any{"path": e.Root})
	if got := inotifyFDs(t); got != 1 { // the process's one shared instance
		t.Fatalf("%d inotify instances after two watches, want 1", got)
	}
	e.CS.Close()
	deadline := time.Now().Add(time.Minute) // only bounds a hang
	for inotifyFDs(t) != before {
		if time.Now().After(deadline) {
			t.Fatalf("watchers still open after the session ended: %d inotify instances, want %d", inotifyFDs(t), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
