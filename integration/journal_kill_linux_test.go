package integration

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// toolCall is a tools/call request line.
func toolCall(id int, tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	return string(b)
}

// TestKilledDuringRmRfLosesNoFile SIGKILLs fsmcp while an fs_bash
// command deletes a tree of distinct files: every file is then either
// still in the tree or in the journal (its content kept there), never
// in neither; and fsmcp undo brings the whole tree back.
func TestKilledDuringRmRfLosesNoFile(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	const n = 3000
	want := map[[32]byte]string{}
	for i := range n {
		rel := fmt.Sprintf("big/d%02d/f%04d.txt", i%30, i)
		body := fmt.Sprintf("file %d: %s\n", i, rel)
		write(t, filepath.Join(root, rel), body)
		want[sha256.Sum256([]byte(body))] = rel
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 30 {
		w.Add(filepath.Join(root, "big", fmt.Sprintf("d%02d", i)))
	}
	s := initFsMCP(t, startRawEnv(t, []string{"XDG_STATE_HOME=" + state}, root))
	s.send(toolCall(2, "fs_bash", map[string]any{"command": "rm -rf " + root + "/big"}))
	removed := 0
	for removed < 500 { // well under way: killed mid-delete
		ev := <-w.Events
		if ev.Op&fsnotify.Remove != 0 {
			removed++
		}
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done

	// Where every file is now: in the tree, or in the journal.
	found := map[[32]byte]bool{}
	for _, dir := range []string{root, state} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if b, err := os.ReadFile(p); err == nil {
					found[sha256.Sum256(b)] = true
				}
			}
			return nil
		})
	}
	lost := 0
	for sum, rel := range want {
		if !found[sum] {
			lost++
			if lost <= 5 {
				t.Errorf("%s is in neither the tree nor the journal", rel)
			}
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d files lost", lost, n)
	}
	run := func(a ...string) string {
		c := exec.Command(binary, a...)
		c.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
		b, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("fsmcp %v: %v\n%s", a, err, b)
		}
		return string(b)
	}
	t.Logf("killed after %d removals; history: %s", removed, run("history", root))
	run("undo", root, "--last", "1")
	for sum, rel := range want {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil || sha256.Sum256(b) != sum {
			t.Fatalf("after fsmcp undo %s is not back: %v", rel, err)
		}
	}
}

// TestKilledWhileMakingFilesLeavesFew SIGKILLs fsmcp while an fs_bash
// command makes thousands of files. That nothing was where a file is made
// reaches the journal in batches (at most 64 records late, keeping no
// content), so fsmcp undo removes every file but at most the last
// batch's, and says that the directory holding those was left.
func TestKilledWhileMakingFilesLeavesFew(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	write(t, filepath.Join(root, "keep.txt"), "here before\n")
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Add(root)
	s := initFsMCP(t, startRawEnv(t, []string{"XDG_STATE_HOME=" + state}, "--index", "off", root))
	s.send(toolCall(2, "fs_bash", map[string]any{"command": "mkdir d && cd d && for i in $(seq 50000); do echo $i > f$i; done"}))
	made := 0
	for made < 2000 { // well under way: killed mid-loop
		ev := <-w.Events
		switch {
		case ev.Name == filepath.Join(root, "d") && ev.Op&fsnotify.Create != 0:
			w.Add(ev.Name)
		case ev.Op&fsnotify.Create != 0:
			made++
		}
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
	c := exec.Command(binary, "undo", root, "--last", "1")
	c.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	said, err := c.CombinedOutput() // status 1 when something was left
	if !strings.Contains(string(said), "undone 1:") {
		t.Fatalf("fsmcp undo: %v\n%s", err, said)
	}
	left, _ := os.ReadDir(filepath.Join(root, "d"))
	if len(left) > 65 {
		t.Fatalf("%d files left after the undo, want at most the last batch's 64 (and one in flight):\n%s", len(left), said)
	}
	if len(left) > 0 && !strings.Contains(string(said), "left in place") {
		t.Fatalf("the undo left %d files and did not say so:\n%s", len(left), said)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "keep.txt")); string(b) != "here before\n" {
		t.Fatalf("keep.txt holds %q", b)
	}
	t.Logf("killed after %d files seen made; %d left by the undo", made, len(left))
}
