package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// atimeOf is path's access time (a symlink followed).
func atimeOf(path string) (time.Time, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return time.Time{}, false
	}
	return time.Unix(st.Atim.Sec, st.Atim.Nsec), true
}

// TestIndexLeavesAccessTimes: the index's own reading (the listing at
// start, the build reading each file, the watcher's walk) leaves access
// times as they were, on a relatime mount where any read of a directory or
// file whose atime is a day old moves it to now; then LocalCowork's
// get_metadata, which only stats, leaves them too. (The check that a plain
// read does move them here comes first: without it the test proves
// nothing and is skipped.)
func TestIndexLeavesAccessTimes(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	control := filepath.Join(base, "control")
	for _, d := range []string{filepath.Join(root, "keep", "sub"), control} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, "keep", "old.txt"), "a NEEDLE in an old file\n")
	write(t, filepath.Join(root, "keep", "sub", "deep.txt"), "deep\n")
	write(t, filepath.Join(control, "c.txt"), "c\n")
	past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	settled := time.Now().Add(-time.Hour) // the index takes a settled file's content
	kept := []string{filepath.Join(root, "keep"), filepath.Join(root, "keep", "sub"),
		filepath.Join(root, "keep", "old.txt"), filepath.Join(root, "keep", "sub", "deep.txt")}
	for _, p := range append(kept, control, filepath.Join(control, "c.txt")) {
		if err := os.Chtimes(p, past, settled); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.ReadDir(control); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(filepath.Join(control, "c.txt")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{control, filepath.Join(control, "c.txt")} {
		if at, ok := atimeOf(p); !ok || at.Equal(past) {
			t.Skipf("SKIPPED: reading %s left its access time (a noatime mount?): nothing to check here", p)
		}
	}

	cmd := exec.Command(binary, "--profile", "localcowork", "--index", "on", "--log-level", "debug", root)
	cmd.Env = append(os.Environ(), "PATH="+modes(t)[0].path, "XDG_CACHE_HOME="+t.TempDir())
	log := &followingLog{testLog: testLog{t: t, prefix: "fsmcp: "}, ready: make(chan struct{})}
	cmd.Stderr = log
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	select {
	case <-log.ready: // built, read every file, and walked the tree for its watches
	case <-ctx.Done():
		t.Fatal("the index never followed the tree")
	}
	for _, p := range kept {
		out := mustCall(t, cs, "filesystem.get_metadata", map[string]any{"path": p})
		if !strings.Contains(out, `"accessed":"2020-01-02T03:04:05.000Z"`) {
			t.Errorf("get_metadata(%s) = %s, want the access time set before the start", p, out)
		}
	}
	for _, p := range kept {
		if at, _ := atimeOf(p); !at.Equal(past) {
			t.Errorf("%s: access time %s after the index and get_metadata, want %s", p, at.UTC(), past)
		}
	}
}
