package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookTwiceJournalsOnce: with fsmcp's hooks installed for a project
// and for the user at once, the host runs both before and after each
// call; the edit is one entry of history, and undone as one.
func TestHookTwiceJournalsOnce(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	file := filepath.Join(root, "f.txt")
	write(t, file, "before\n")
	env := append(os.Environ(), "XDG_STATE_HOME="+state)
	hook := func(event string, args ...string) {
		cmd := exec.Command(binary, append([]string{"hook", "gemini", "--state-home", state}, args...)...)
		cmd.Dir, cmd.Env = root, env
		cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"s1","cwd":%q,"hook_event_name":%q,"tool_name":"write_file","tool_input":{"file_path":"f.txt","content":"after\n"}}`, root, event))
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("fsmcp hook gemini %s: %v %s", event, err, out)
		}
	}
	hook("BeforeTool", "--dir", root) // the project's
	hook("BeforeTool")                // the user's
	write(t, file, "after\n")
	hook("AfterTool", "--dir", root)
	hook("AfterTool")
	h := exec.Command(binary, "history", root)
	h.Env = env
	out, _ := h.CombinedOutput()
	if n := strings.Count(string(out), "write_file"); n != 1 {
		t.Fatalf("history lists the edit %d times:\n%s", n, out)
	}
	u := exec.Command(binary, "undo", root, "--last", "1")
	u.Env = env
	if out, err := u.CombinedOutput(); err != nil {
		t.Fatalf("undo: %v\n%s", err, out)
	}
	if got := readFileOr(file); got != "before\n" {
		t.Errorf("after the undo f.txt holds %q", got)
	}
}
