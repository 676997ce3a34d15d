package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostShellThroughTheHookIsUnchanged (issue 46): the commands of
// Claude Code's Bash tool, run through the prefix fsmcp hooks install
// writes, answer exactly as Claude Code's own shell does without it:
// the same stdout, stderr, exit status (a signal's death included) and
// working directory left for the next call, for every quoting form,
// failures under set -e, stdin, exec, traps, long output; and what they
// change is journaled.
func TestHostShellThroughTheHookIsUnchanged(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	env := append(os.Environ(), "XDG_STATE_HOME="+state, "SHELL=/bin/bash", "CLAUDE_CODE_SESSION_ID=test-session")
	install := exec.Command(binary, "hooks", "install", "claude-code")
	install.Dir, install.Env = root, env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("fsmcp hooks install: %v\n%s", err, out)
	}
	prefix, _ := filepath.Glob(filepath.Join(state, "fsmcp", "hooks", "claude-code-shell-*"))
	if len(prefix) != 1 {
		t.Fatalf("the install wrote %v", prefix)
	}
	commands := []string{
		`echo "double $((1+1))" 'single' $'ansi\tquote' "it's"`,
		`printf '%s|%s\n' "$(echo sub)" ` + "`echo back`",
		"cat > made.txt <<'EOF'\nheredoc $(not run) 'q'\nline two\nEOF\ncat made.txt",
		`echo ünï 日本 🙂`,
		`echo before; exit 3`,
		`set -e; false; echo never`,
		`cat; echo "stdin was empty: $?"`,
		`exec echo replaced`,
		`trap 'echo trapped' EXIT; echo body`,
		`seq 1 20000`,
		`echo a; echo b >&2; echo c`,
		`cd sub && pwd`,
		`kill -TERM $$`,
		"echo one\necho two",
		`f() { echo "in f $1"; }; f arg`,
		`(sleep 0.2; echo late > late.txt) >/dev/null 2>&1 &`,
	}
	run := func(dir string, hooked bool, cmd string) (string, string, int, string) {
		cwdFile := filepath.Join(t.TempDir(), "claude-x-cwd")
		script := "eval " + shellSingle(cmd) + " < /dev/null && pwd -P >| " + cwdFile
		script = "source /dev/null 2>/dev/null || true && " + script
		var c *exec.Cmd
		if hooked {
			c = exec.Command(prefix[0], script)
		} else {
			c = exec.Command("/bin/bash", "-c", script)
		}
		c.Dir, c.Env = dir, env
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		c.Run()
		status := c.ProcessState.ExitCode()
		if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = 128 + int(ws.Signal())
		}
		cwd, _ := os.ReadFile(cwdFile)
		return out.String(), errb.String(), status, string(cwd)
	}
	for _, cmd := range commands {
		plainDir := t.TempDir()
		os.MkdirAll(filepath.Join(plainDir, "sub"), 0o755)
		o1, e1, s1, c1 := run(plainDir, false, cmd)
		o2, e2, s2, c2 := run(root, true, cmd)
		o1, c1 = strings.ReplaceAll(o1, plainDir, "ROOT"), strings.ReplaceAll(c1, plainDir, "ROOT")
		o2, c2 = strings.ReplaceAll(o2, root, "ROOT"), strings.ReplaceAll(c2, root, "ROOT")
		if o1 != o2 || e1 != e2 || s1 != s2 || c1 != c2 {
			t.Errorf("%q:\nwithout the hook: stdout %.200q stderr %q status %d cwd %q\nthrough it:       stdout %.200q stderr %q status %d cwd %q",
				cmd, o1, e1, s1, c1, o2, e2, s2, c2)
		}
		if strings.Contains(cmd, "late.txt") {
			// What the command left running writes after it returned:
			// waited for, so that the test's directories can go.
			for _, d := range []string{plainDir, root} {
				deadline := time.Now().Add(time.Minute)
				for readFileOr(filepath.Join(d, "late.txt")) != "late\n" && time.Now().Before(deadline) {
					time.Sleep(50 * time.Millisecond)
				}
			}
		}
	}
	hist := exec.Command(binary, "history", root)
	hist.Env = env
	h, _ := hist.CombinedOutput()
	if !strings.Contains(string(h), "made.txt (absent -> ") || !strings.Contains(string(h), "session claude-code-") {
		t.Errorf("the heredoc's file is not journaled under the host's session:\n%s", h)
	}
}

// shellSingle quotes s in single quotes, as Claude Code quotes the
// command it evals.
func shellSingle(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
