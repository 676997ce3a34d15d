package profiles_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles"
	"github.com/fsmcp/fsmcp/profiles/watches"
	"github.com/fsmcp/fsmcp/server"
)

// fs_watch and watch_folder keep their watchers in the session's one
// registry: served together, they share one bound (watches.Max),
// and stopping one tool's watcher frees room for the other's.
func TestWatchToolsShareTheSessionsBound(t *testing.T) {
	tables, err := profiles.Lookup("fsmcp,localcowork")
	if err != nil {
		t.Fatal(err)
	}
	e := testenv.New(t, testenv.WithServer(func(c *server.Config) { c.Profiles = tables }))
	half := watches.Max / 2
	for i := range half {
		e.OK("fs_watch", map[string]any{"path": e.Root})
		e.OK("filesystem.watch_folder", map[string]any{"path": e.Root, "callback_id": fmt.Sprintf("cb%d", i)})
	}
	e.Fails("fs_watch", map[string]any{"path": e.Root}, fmt.Sprintf("already has %d watches", watches.Max))
	if _, err := e.Call("filesystem.watch_folder", map[string]any{"path": e.Root, "callback_id": "one-more"}); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("already has %d watchers", watches.Max)) {
		t.Fatalf("watch_folder past the session's bound: %v", err)
	}
	e.OK("fs_watch", map[string]any{"action": "stop", "watcher_id": "cb0"}) // watch_folder's, by its id
	e.OK("fs_watch", map[string]any{"path": e.Root})
}
