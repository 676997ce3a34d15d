package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestChangeBeyondPathMaxIsSaid: a command that changes a file deeper
// than PATH_MAX (25 directories of 200 bytes, reached by cd) cannot be
// journaled, since no path names it; the command's answer and history
// say so, and the undo of the rest still runs.
func TestChangeBeyondPathMaxIsSaid(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	s := initFsMCP(t, startRawEnv(t, []string{"XDG_STATE_HOME=" + state}, "--index", "off", root))
	d := strings.Repeat("d", 200)
	s.send(toolCall(2, "fs_bash", map[string]any{"command": "echo kept > near.txt; for i in $(seq 25); do mkdir " + d + " && cd " + d + "; done; echo deep > f"}))
	answer, _ := json.Marshal(s.next())
	if !strings.Contains(string(answer), "PATH_MAX") {
		t.Fatalf("the answer does not say a change was not kept:\n%s", answer)
	}
	run := func(a ...string) string {
		c := exec.Command(binary, a...)
		c.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
		b, _ := c.CombinedOutput()
		return string(b)
	}
	if h := run("history", root); !strings.Contains(h, "PATH_MAX") {
		t.Fatalf("history does not say it:\n%s", h)
	}
	run("undo", root, "--last", "1")
	if _, err := os.Stat(filepath.Join(root, "near.txt")); !os.IsNotExist(err) {
		t.Fatalf("near.txt was not undone: %v", err)
	}
}
