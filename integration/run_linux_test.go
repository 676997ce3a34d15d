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

// fsmcpRun runs "fsmcp run" in dir with the given state, stdin and
// arguments, and returns its stdout, stderr and exit status.
func fsmcpRun(t *testing.T, dir, state, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"run"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("fsmcp run %v: %v", args, err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestRunJournalsACommandAndPassesItThrough (issue 46, item 1): fsmcp
// run -- COMMAND passes stdin, stdout, stderr and the exit status
// through untouched, journals what the command changed in DIR (the
// enclosing git work tree when run from a subdirectory) as one entry,
// and fsmcp undo DIR --last 1 puts it back; what it left running is
// journaled after it returned, without holding it.
func TestRunJournalsACommandAndPassesItThrough(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	sub := filepath.Join(root, "sub")
	write(t, filepath.Join(sub, "a.txt"), "old\n")
	out, errs, code := fsmcpRun(t, sub, state, "from stdin\n", "--", "bash", "-c",
		`cat > got.txt; printf 'o\n'; printf 'e\n' >&2; sed -i s/old/new/ a.txt; mkdir -p ../made/d; ln -s a.txt l; exit 7`)
	if out != "o\n" || errs != "e\n" || code != 7 {
		t.Errorf("stdout %q, stderr %q, status %d; want o, e and 7", out, errs, code)
	}
	if readFileOr(filepath.Join(sub, "got.txt")) != "from stdin\n" {
		t.Errorf("stdin did not reach the command")
	}
	env := append(os.Environ(), "XDG_STATE_HOME="+state)
	history := func() string {
		c := exec.Command(binary, "history", root)
		c.Env = env
		b, _ := c.CombinedOutput()
		return string(b)
	}
	h := history()
	if n := strings.Count(strings.TrimSpace(h), "\n") + 1; n != 1 || !strings.Contains(h, "fsmcp run") || !strings.Contains(h, "made") {
		t.Fatalf("fsmcp history DIR (the work tree) after one run:\n%s", h)
	}
	undo := exec.Command(binary, "undo", root, "--last", "1")
	undo.Env = env
	if b, err := undo.CombinedOutput(); err != nil {
		t.Fatalf("fsmcp undo: %v\n%s", err, b)
	}
	if readFileOr(filepath.Join(sub, "a.txt")) != "old\n" {
		t.Error("a.txt was not put back")
	}
	for _, gone := range []string{"sub/got.txt", "sub/l", "made"} {
		if _, err := os.Lstat(filepath.Join(root, gone)); err == nil {
			t.Errorf("%s is still there after the undo", gone)
		}
	}

	// A process left running: fsmcp run returns at once, and what the
	// process changes later is an entry of its own.
	mark := filepath.Join(root, "go")
	start := time.Now()
	_, errs, code = fsmcpRun(t, root, state, "", "--", "bash", "-c", "(while [ ! -e go ]; do sleep 0.05; done; echo bg > bg.txt) >/dev/null 2>&1 &")
	if code != 0 || errs != "" {
		t.Fatalf("fsmcp run of a background command: status %d, stderr %q", code, errs)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("fsmcp run waited %v for what the command left running", d)
	}
	write(t, mark, "")
	deadline := time.Now().Add(time.Minute)
	for {
		h := history()
		if strings.Contains(h, "fsmcp run (background)") && strings.Contains(h, "bg.txt (absent -> 3 bytes)") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background's change is not journaled:\n%s", h)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRunPassesSignalsAndDeaths: a signal sent to fsmcp run reaches the
// command, and a command killed by a signal makes fsmcp run end the
// same way; a command that is not found answers 127.
func TestRunPassesSignalsAndDeaths(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	cmd := exec.Command(binary, "run", "--", "bash", "-c", `trap 'echo got TERM > term.txt; exit 9' TERM; echo ready; while :; do sleep 0.05; done`)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := stdout.Read(buf); err != nil || string(buf) != "ready\n" {
		t.Fatalf("no ready: %q %v", buf, err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 9 || readFileOr(filepath.Join(root, "term.txt")) != "got TERM\n" {
		t.Errorf("SIGTERM to fsmcp run: status %d, term.txt %q", code, readFileOr(filepath.Join(root, "term.txt")))
	}
	kill := exec.Command(binary, "run", "--", "bash", "-c", "kill -KILL $$")
	kill.Dir = root
	kill.Env = cmd.Env
	kill.Run()
	if ws, ok := kill.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("a command killed by SIGKILL: fsmcp run ended %v", kill.ProcessState)
	}
	if _, errs, code := fsmcpRun(t, root, state, "", "--", "no-such-command-here"); code != 127 || !strings.Contains(errs, "not found") {
		t.Errorf("a missing command: status %d, %q", code, errs)
	}
}

// TestRunPassesASignalSentWhileItStarts: a SIGTERM that reaches fsmcp
// run while it starts the command (after it began catching signals,
// before the command ran) ends the command once it runs. It was dropped,
// and the command ran on for good (found with the race detector: the
// signal's goroutine read the command's process while the start wrote
// it). The signal goes at every half millisecond of the first 100 ms;
// each run must end, the way a SIGTERM ends it.
func TestRunPassesASignalSentWhileItStarts(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"))
	for d := time.Duration(0); d <= 100*time.Millisecond; d += 500 * time.Microsecond {
		cmd := exec.Command(binary, "run", "--", "bash", "-c", "while :; do sleep 0.05; done")
		cmd.Dir, cmd.Env = root, env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(d)
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute): // it ends in milliseconds; a dropped signal never
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			t.Fatalf("SIGTERM %v after fsmcp run started: it did not end", d)
		}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Fatalf("SIGTERM %v after fsmcp run started: it ended %v", d, cmd.ProcessState)
		}
	}
}

// TestRunWhereTheJournalCannotBeWrittenSaysSo: where the journal cannot
// be written (a host's sandbox that forbids writes outside the
// workspace, here a state directory below a file), fsmcp run runs the
// command all the same, its output and status untouched, and says in
// one line that it is not journaled.
func TestRunWhereTheJournalCannotBeWrittenSaysSo(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	write(t, file, "")
	out, errs, code := fsmcpRun(t, root, filepath.Join(file, "state"), "", "--", "bash", "-c", "echo made > m.txt; echo out; exit 4")
	if out != "out\n" || code != 4 || readFileOr(filepath.Join(root, "m.txt")) != "made\n" {
		t.Errorf("stdout %q, status %d, m.txt %q: the command must run as it is", out, code, readFileOr(filepath.Join(root, "m.txt")))
	}
	if n := strings.Count(errs, "\n"); n != 1 || !strings.HasPrefix(errs, "fsmcp run: not journaled: ") {
		t.Errorf("stderr %q: want one line saying it is not journaled", errs)
	}
}
