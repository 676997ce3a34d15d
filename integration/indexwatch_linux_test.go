package integration

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestIndexWatchesStayWithinTheShare: every inotify watch the index adds
// comes out of the share it leaves the user's other programs, whatever
// the tree. The share counted only the directories that hold files, so a
// tree of empty directories took the user's whole budget
// (fs.inotify.max_user_watches): the next program's inotify_add_watch
// failed (an editor's file watching stopped). The share is set with
// --index-watches here, as the kernel's limit cannot be lowered for a
// test; a tree with more directories than the share is not followed (and
// holds no watch), one with room is followed within it, and the answers
// are the same either way.
func TestIndexWatchesStayWithinTheShare(t *testing.T) {
	attack(t)
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	old := time.Now().Add(-time.Hour) // settled: the index takes the content
	for i := range 20 {
		p := filepath.Join(root, fmt.Sprintf("src/d%d/f%d.txt", i%4, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		content := "plain text\n"
		if i%5 == 0 {
			content = "a NEEDLE here\n"
		}
		write(t, p, content)
		os.Chtimes(p, old, old)
	}
	const empty = 3000
	for i := range empty {
		if err := os.MkdirAll(filepath.Join(root, "empty", fmt.Sprintf("e%d/e%d", i%60, i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m := modes(t)[0]
	want := mustCall(t, connectStdio(t, m, "--read-only", "--index", "off", root), "fs_grep", map[string]any{"pattern": "NEEDLE", "path": root})
	for _, c := range []struct {
		name   string
		share  int
		follow bool
	}{
		{"fewer watches than directories", empty / 3, false},
		{"room for every directory", 2 * empty, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(binary, "--read-only", "--index", "on", "--index-watches", strconv.Itoa(c.share), root)
			cmd.Env = append(os.Environ(), "PATH="+m.path, "XDG_CACHE_HOME="+t.TempDir())
			stderr := &lockedBuffer{}
			log := &followingLog{testLog: testLog{t: t, prefix: "fsmcp: "}, ready: make(chan struct{})}
			cmd.Stderr = io.MultiWriter(stderr, log)
			cs, err := newClient().Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			select {
			case <-log.ready:
			case <-time.After(2 * time.Minute): // only bounds a hang
				t.Fatal("the index did not say whether it follows the tree")
			}
			held := inotifyWatches(t, cmd.Process.Pid)
			if held > c.share {
				t.Errorf("fsmcp holds %d inotify watches, over its share of %d", held, c.share)
			}
			switch followed := strings.Contains(stderr.String(), "index: following changes"); {
			case followed != c.follow:
				t.Errorf("following the tree: %v, want %v; stderr:\n%s", followed, c.follow, stderr)
			case !c.follow && (held != 0 || !strings.Contains(stderr.String(), fmt.Sprintf("the index's share (%d", c.share))):
				t.Errorf("a tree not followed holds %d watches, or stderr does not say why:\n%s", held, stderr)
			}
			if got := mustCall(t, cs, "fs_grep", map[string]any{"pattern": "NEEDLE", "path": root}); got != want {
				t.Errorf("fs_grep = %q, want %q", got, want)
			}
		})
	}
}

// inotifyWatches counts the inotify watches process pid holds.
func inotifyWatches(t *testing.T, pid int) int {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join(dir, fd.Name())); err != nil || l != "anon_inode:inotify" {
			continue
		}
		info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, fd.Name()))
		if err != nil {
			t.Fatal(err)
		}
		n += strings.Count(string(info), "inotify wd:")
	}
	return n
}
