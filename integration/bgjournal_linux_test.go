package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBackgroundChangesOfAStatelessClientKept (issue 47, item 3): fsmcp
// over HTTP with no DIR; a 2026-07-28 client answers the roots request,
// and its command leaves a process that writes a new file and rewrites
// an old one after the call returned. The call's roots are closed with
// the call; the background's entry must still list both, rightly, and
// undo them.
func TestBackgroundChangesOfAStatelessClientKept(t *testing.T) {
	m := modes(t)[0]
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	old, bg := filepath.Join(root, "old.txt"), filepath.Join(root, "bg.txt")
	write(t, old, "old\n")
	url, _ := startHTTP(t, m)
	cs := connectStatelessRoots(t, url, false, nil, fileURI(root))
	mark := filepath.Join(root, "started")
	mustCall(t, cs, "fs_bash", map[string]any{"command": "(while [ ! -e " + mark + " ]; do sleep 0.05; done; echo BG > " + bg + "; echo changed > " + old + ") >/dev/null 2>&1 &"})
	// The call has returned (its roots closed); now the process writes.
	write(t, mark, "")
	line := waitForHistory(t, cs, root, func(h string) bool {
		return strings.Contains(h, "fs_bash (background)") && strings.Contains(h, "bg.txt") && !strings.Contains(h, "[in progress]")
	})
	for _, want := range []string{"bg.txt (absent -> 3 bytes)", "old.txt (4 bytes -> 8 bytes)"} {
		if !strings.Contains(line, want) {
			t.Errorf("the background entry lacks %q:\n%s", want, line)
		}
	}
	if strings.Contains(line, "not undoable") {
		t.Errorf("the background entry is not undoable:\n%s", line)
	}
	os.Remove(mark)
	mustCall(t, cs, "fs_undo", map[string]any{"path": root, "id": strings.Fields(line)[0]})
	if got := readFileOr(old); got != "old\n" {
		t.Errorf("old.txt after the undo: %q", got)
	}
	if _, err := os.Stat(bg); err == nil {
		t.Error("bg.txt is still there after the undo")
	}
}

// waitForHistory polls fs_history of root until one line satisfies ok,
// and returns it (a minute at most: the background's step ends after a
// quiet second, or when its last process ends).
func waitForHistory(t *testing.T, cs *mcp.ClientSession, root string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	var h string
	for time.Now().Before(deadline) {
		h = mustCall(t, cs, "fs_history", map[string]any{"path": root})
		for _, l := range strings.Split(h, "\n") {
			if ok(l) {
				return l
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no such history line within a minute:\n%s", h)
	return ""
}
