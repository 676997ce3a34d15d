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

// TestCodexShellThroughBashEnvIsUnchanged (issue 46): a command run as
// Codex runs its exec_command (its shell's -c script, plain, as a login
// shell, or wrapped in the script that sources its shell snapshot), with
// the BASH_ENV fsmcp hooks install codex gives it, answers exactly as
// without it: the same stdout, stderr, exit status (a signal's death
// included), $0 and environment (no BASH_ENV seen), for every quoting
// form, failures under set -e, stdin, exec, traps, long output; and what
// it changes is journaled under the Codex thread's session, the model's
// command as history's text.
func TestCodexShellThroughBashEnvIsUnchanged(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	codexHome := filepath.Join(t.TempDir(), "codex")
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	env := append(os.Environ(), "XDG_STATE_HOME="+state, "CODEX_HOME="+codexHome, "CODEX_THREAD_ID=test-thread")
	install := exec.Command(binary, "hooks", "install", "codex", "--user")
	install.Dir, install.Env = root, env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("fsmcp hooks install codex: %v\n%s", err, out)
	}
	script := filepath.Join(state, "fsmcp", "hooks", "codex-bash-env")
	if b, _ := os.ReadFile(filepath.Join(codexHome, "config.toml")); !strings.Contains(string(b), script) {
		t.Fatalf("config.toml sets no BASH_ENV of fsmcp's:\n%s", b)
	}
	snapshot := filepath.Join(t.TempDir(), "snapshot.sh")
	write(t, snapshot, "snapshot_fn() { echo from-snapshot; }\n")
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
		`echo "$0 $#"; env | grep -c '^BASH_ENV=' ; bash -c 'echo nested'`,
		`(sleep 0.2; echo late > late.txt) >/dev/null 2>&1 &`,
	}
	forms := map[string]func(cmd string) []string{
		"-c":  func(cmd string) []string { return []string{"/bin/bash", "-c", cmd} },
		"-lc": func(cmd string) []string { return []string{"/bin/bash", "-lc", cmd} },
		"snapshot": func(cmd string) []string {
			return []string{"/bin/bash", "-c", "__CODEX_SNAPSHOT_OVERRIDE_SET_0=\"${BASH_ENV+x}\"\n__CODEX_SNAPSHOT_OVERRIDE_0=\"${BASH_ENV-}\"\n" +
				"if . " + shellSingle(snapshot) + " >/dev/null 2>&1; then :; fi\n\n" +
				"if [ -n \"${__CODEX_SNAPSHOT_OVERRIDE_SET_0}\" ]; then export BASH_ENV=\"${__CODEX_SNAPSHOT_OVERRIDE_0}\"; else unset BASH_ENV; fi\n\n" +
				"exec '/bin/bash' -c " + shellSingle("snapshot_fn; "+cmd)}
		},
	}
	run := func(dir string, hooked bool, argv []string) (string, string, int) {
		c := exec.Command(argv[0], argv[1:]...)
		c.Dir, c.Env = dir, env
		if hooked {
			c.Env = append(c.Env, "BASH_ENV="+script)
		}
		var out, errb strings.Builder
		c.Stdout, c.Stderr = &out, &errb
		c.Run()
		status := c.ProcessState.ExitCode()
		if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = 128 + int(ws.Signal())
		}
		return out.String(), errb.String(), status
	}
	for name, form := range forms {
		for _, cmd := range commands {
			plainDir := t.TempDir()
			os.MkdirAll(filepath.Join(plainDir, "sub"), 0o755)
			os.RemoveAll(filepath.Join(root, "made.txt"))
			o1, e1, s1 := run(plainDir, false, form(cmd))
			o2, e2, s2 := run(root, true, form(cmd))
			o1, o2 = strings.ReplaceAll(o1, plainDir, "ROOT"), strings.ReplaceAll(o2, root, "ROOT")
			if o1 != o2 || e1 != e2 || s1 != s2 {
				t.Errorf("%s %q:\nwithout BASH_ENV: stdout %.200q stderr %q status %d\nthrough it:       stdout %.200q stderr %q status %d",
					name, cmd, o1, e1, s1, o2, e2, s2)
			}
			if strings.Contains(cmd, "late.txt") {
				for _, d := range []string{plainDir, root} {
					deadline := time.Now().Add(time.Minute)
					for readFileOr(filepath.Join(d, "late.txt")) != "late\n" && time.Now().Before(deadline) {
						time.Sleep(50 * time.Millisecond)
					}
					os.Remove(filepath.Join(d, "late.txt"))
				}
			}
		}
	}
	hist := exec.Command(binary, "history", root)
	hist.Env = env
	h, _ := hist.CombinedOutput()
	if !strings.Contains(string(h), "made.txt (absent -> ") || !strings.Contains(string(h), "session codex-") ||
		!strings.Contains(string(h), "exec_command  session") || !strings.Contains(string(h), "$ snapshot_fn; cat > made.txt <<'EOF'") {
		t.Errorf("the heredoc's file is not journaled under the Codex session, with the model's command:\n%s", h)
	}
}
