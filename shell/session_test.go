//go:build unix

package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the sandbox helper, as fsmcp's
// main does: a sandboxed Session re-executes os.Executable().
func TestMain(m *testing.M) {
	MaybeRunSandboxChild()
	os.Exit(m.Run())
}

// newTestSession makes a root with a subdirectory "sub" and a sibling
// "<root>_evil" that shares its prefix, and a session in mode m.
func newTestSession(t *testing.T, m Mode, env []string) (*Session, string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	for _, d := range []string{root, filepath.Join(root, "sub"), root + "_evil"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err := NewSession(Options{Roots: []string{root}, Mode: m, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, root
}

func run(t *testing.T, s *Session, cmd string) Result {
	t.Helper()
	res, err := s.Run(context.Background(), cmd, 2*time.Minute) // only bounds a hang
	if err != nil {
		t.Fatalf("Run(%q): %v", cmd, err)
	}
	return res
}

// modes runs f in both modes that have a shell (sandboxed only where
// Landlock works).
func modes(t *testing.T, f func(t *testing.T, m Mode)) {
	t.Run("on", func(t *testing.T) { f(t, ModeOn) })
	t.Run("sandboxed", func(t *testing.T) {
		requireLandlock(t)
		f(t, ModeSandboxed)
	})
}

func requireLandlock(t *testing.T) {
	t.Helper()
	if _, ok := Available(); !ok {
		t.Skip("kernel has no Landlock (needs Linux 5.13+ with landlock enabled): sandboxed shell cannot be tested here")
	}
}

// alive reports whether pid is a live process (a zombie counts as gone).
func alive(pid int) bool {
	_, _, ok := procStat(pid)
	return ok
}

// waitGone waits for pid to be gone (the minute only bounds a hang).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 6000; i++ {
		if !alive(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("process %d still alive", pid)
}

// hostPid maps a pid the command printed ($!, $$: inside the sandboxed
// session's pid namespace, its number there) to the test's view.
func hostPid(t *testing.T, s *Session, pid int) int {
	t.Helper()
	hp, err := s.hostPid(pid)
	if err != nil {
		t.Fatalf("pid %d: %v", pid, err)
	}
	return hp
}

// waitGoneIn waits for the process the command knew as pid to be gone.
func waitGoneIn(t *testing.T, s *Session, pid int) {
	t.Helper()
	if hp, err := s.hostPid(pid); err == nil {
		waitGone(t, hp)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var b []byte
	var err error
	for i := 0; i < 6000; i++ { // a minute at most: only bounds a hang
		if b, err = os.ReadFile(path); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %s: %q: %v", path, b, err)
	}
	return pid
}

func TestCwdPersists(t *testing.T) {
	modes(t, func(t *testing.T, m Mode) {
		s, root := newTestSession(t, m, nil)
		if got := run(t, s, "pwd").Output; got != root+"\n" {
			t.Fatalf("first pwd = %q, want %q", got, root)
		}
		res := run(t, s, "cd sub")
		if res.ExitCode != 0 || res.Cwd != filepath.Join(root, "sub") {
			t.Fatalf("cd sub: %+v", res)
		}
		if got := run(t, s, "pwd").Output; got != filepath.Join(root, "sub")+"\n" {
			t.Fatalf("pwd after cd = %q", got)
		}
		if s.Cwd() != filepath.Join(root, "sub") {
			t.Fatalf("Cwd() = %q", s.Cwd())
		}
	})
}

func TestMarkerNeverInOutputAndUnforgeable(t *testing.T) {
	s, root := newTestSession(t, ModeOn, nil)
	// A fake fsMCP marker and a fake NUL-framed record in the output, a
	// script that uses fd 3 itself, and a real cd at the end.
	cmd := `printf '___FSMCP_CWD___/\n'; printf '\0/\0'; printf '\0/\0' >&2
exec 3>&1; echo three >&3
cd sub`
	res := run(t, s, cmd)
	want := "___FSMCP_CWD___/\n\x00/\x00\x00/\x00three\n"
	if res.Output != want {
		t.Fatalf("output = %q, want %q", res.Output, want)
	}
	if res.Cwd != filepath.Join(root, "sub") || res.RefusedCwd != "" {
		t.Fatalf("cwd = %q (refused %q), want %s/sub", res.Cwd, res.RefusedCwd, root)
	}
	// The marker variable cannot be pointed at stdout.
	res = run(t, s, `__fsmcp_fd=1; cd ..`)
	if res.ExitCode == 0 || strings.Contains(res.Output, "\x00") || res.Cwd != filepath.Join(root, "sub") {
		t.Fatalf("overwriting the marker fd: %+v", res)
	}
}

func TestCdOutsideRefused(t *testing.T) {
	modes(t, func(t *testing.T, m Mode) {
		s, root := newTestSession(t, m, nil)
		run(t, s, "cd sub")
		for _, dir := range []string{root + "_evil", "/", filepath.Dir(root)} {
			res := run(t, s, "cd "+dir)
			if absent(s, res) { // in the shell's own mount namespace, the sibling does not exist
				continue
			}
			if res.RefusedCwd != dir || res.Cwd != filepath.Join(root, "sub") {
				t.Errorf("cd %s: cwd %q refused %q", dir, res.Cwd, res.RefusedCwd)
			}
			if want := "cwd " + dir + " is outside allowed directories: " + root; res.Notice != want || !strings.Contains(res.Text(), want) {
				t.Errorf("cd %s: notice %q, text %q", dir, res.Notice, res.Text())
			}
			if got := run(t, s, "pwd").Output; got != filepath.Join(root, "sub")+"\n" {
				t.Errorf("after refused cd %s, pwd = %q", dir, got)
			}
		}
		// A symlink in the root that leads out is judged by its target.
		if err := os.Symlink(root+"_evil", filepath.Join(root, "out")); err != nil {
			t.Fatal(err)
		}
		if res := run(t, s, "cd "+filepath.Join(root, "out")); res.RefusedCwd != root+"_evil" && !absent(s, res) {
			t.Errorf("cd through symlink: %+v", res)
		}
	})
}

// absent reports whether a cd failed because, in the sandboxed shell's
// own mount namespace, the directory does not exist at all (and the
// working directory stayed).
func absent(s *Session, res Result) bool {
	return s.namespaced() && res.ExitCode != 0 && strings.Contains(res.Output, "No such file or directory") &&
		res.RefusedCwd == "" && res.Notice == "" && res.Cwd == s.Cwd()
}

func TestExitKeepsCwd(t *testing.T) {
	s, root := newTestSession(t, ModeOn, nil)
	res := run(t, s, "cd sub && exit 3")
	if res.ExitCode != 3 || res.Cwd != root || s.Cwd() != root {
		t.Fatalf("exit 3: code %d cwd %q", res.ExitCode, s.Cwd())
	}
	if !res.Failed() || !strings.HasSuffix(res.Text(), "Exit code: 3") {
		t.Fatalf("text = %q", res.Text())
	}
}

func TestFailureKeepsStatusAndStderr(t *testing.T) {
	modes(t, func(t *testing.T, m Mode) {
		s, root := newTestSession(t, m, nil)
		res := run(t, s, "cd sub; ls does-not-exist")
		if res.ExitCode != 2 || !strings.Contains(res.Output, "does-not-exist") || !strings.Contains(res.Output, "No such file") {
			t.Fatalf("ls missing: %+v", res)
		}
		// Unlike fsMCP, a failing command still moves the cwd.
		if res.Cwd != filepath.Join(root, "sub") {
			t.Fatalf("cwd = %q", res.Cwd)
		}
		if res := run(t, s, "false"); res.ExitCode != 1 || res.Text() != "Exit code: 1" {
			t.Fatalf("false: %+v text %q", res, res.Text())
		}
		if res := run(t, s, "echo ok"); res.ExitCode != 0 || res.Text() != "ok\n" {
			t.Fatalf("echo: %+v", res)
		}
		// A syntax error is an ordinary failure that keeps the session usable.
		if res := run(t, s, "if then fi ("); res.ExitCode != 2 || !strings.Contains(res.Output, "syntax error") {
			t.Fatalf("syntax error: %+v", res)
		}
		if res := run(t, s, "kill -9 $$"); res.ExitCode != 137 {
			t.Fatalf("killed shell: code %d", res.ExitCode)
		}
	})
}

func TestStdoutStderrOrder(t *testing.T) {
	s, _ := newTestSession(t, ModeOn, nil)
	res := run(t, s, "echo one; echo two >&2; echo three; ls /nonexistent-fsmcp 2>&1 >/dev/null | wc -l; echo four >&2")
	if res.Output != "one\ntwo\nthree\n1\nfour\n" {
		t.Fatalf("output = %q", res.Output)
	}
}

// bash does not wait for a process substitution; its output still counts.
func TestProcessSubstitutionOutputKept(t *testing.T) {
	s, _ := newTestSession(t, ModeOn, nil)
	if out := run(t, s, "echo hi > >(tr a-z A-Z)").Output; out != "HI\n" {
		t.Fatalf("output %q", out)
	}
}

func TestTruncationKeepsHeadAndTail(t *testing.T) {
	s, _ := newTestSession(t, ModeOn, nil)
	// START + 100000 x + END: 100008 characters.
	res := run(t, s, `printf START; head -c 100000 /dev/zero | tr '\0' x; printf END`)
	if !res.Truncated || res.Dropped != 100008-DefaultMaxOutput {
		t.Fatalf("truncated %v dropped %d", res.Truncated, res.Dropped)
	}
	if !strings.HasPrefix(res.Output, "START") || !strings.HasSuffix(res.Output, "END") {
		t.Fatalf("head/tail lost: %q ... %q", res.Output[:20], res.Output[len(res.Output)-20:])
	}
	marker := fmt.Sprintf("[output truncated: %d characters dropped from the middle]", 100008-DefaultMaxOutput)
	if !strings.Contains(res.Output, marker) {
		t.Fatalf("no marker %q", marker)
	}
	if n := strings.Count(res.Output, "x"); n != DefaultMaxOutput-len("START")-len("END") {
		t.Fatalf("kept %d x", n)
	}
}

func TestHugeOutputIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	s, _ := newTestSession(t, ModeOn, nil)
	// 128 MiB through the pipe: the capture keeps ~150 KB whatever comes.
	res := run(t, s, `head -c 134217728 /dev/zero | tr '\0' y; echo; echo last`)
	if res.TimedOut || !res.Truncated || res.Dropped != 134217728+6-DefaultMaxOutput || !strings.HasSuffix(res.Output, "\nlast\n") {
		t.Fatalf("dropped %d, tail %q", res.Dropped, res.Output[len(res.Output)-20:])
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	modes(t, func(t *testing.T, m Mode) {
		s, root := newTestSession(t, m, nil)
		start := time.Now()
		// The timeout leaves bash room to start on a loaded machine; the
		// minute (well short of the sleeps) only tells a kill from a hang.
		res, err := s.Run(context.Background(), "sleep 100 & echo $! > child.pid; echo waiting; sleep 100", 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > time.Minute {
			t.Fatalf("took %v", d)
		}
		if !res.TimedOut || res.ExitCode != 137 || res.Output != "waiting\n" {
			t.Fatalf("result %+v", res)
		}
		if !strings.Contains(res.Text(), "timed out after 3000 ms") || !strings.HasSuffix(res.Text(), "Exit code: 137") {
			t.Fatalf("text %q", res.Text())
		}
		waitGoneIn(t, s, readPid(t, filepath.Join(root, "child.pid")))
		if got := run(t, s, "echo again").Output; got != "again\n" {
			t.Fatalf("after timeout: %q", got)
		}
	})
}

func TestCancelKillsProcessGroup(t *testing.T) {
	s, root := newTestSession(t, ModeOn, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		readPid(t, filepath.Join(root, "child.pid"))
		cancel()
	}()
	start := time.Now()
	res, err := s.Run(ctx, "(sleep 100; echo never) & echo $! > child.pid; wait", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || time.Since(start) > time.Minute { // well short of the sleep: a kill, not a hang
		t.Fatalf("result %+v after %v", res, time.Since(start))
	}
	waitGone(t, readPid(t, filepath.Join(root, "child.pid")))
}

func TestBackgroundChildDoesNotHang(t *testing.T) {
	modes(t, func(t *testing.T, m Mode) {
		s, root := newTestSession(t, m, nil)
		start := time.Now()
		res := run(t, s, "sleep 100 & echo $! > bg.pid; echo started")
		if d := time.Since(start); d > time.Minute { // well short of the sleep: not waited for
			t.Fatalf("call took %v", d)
		}
		if res.Output != "started\n" || res.ExitCode != 0 {
			t.Fatalf("result %+v", res)
		}
		pid := hostPid(t, s, readPid(t, filepath.Join(root, "bg.pid")))
		if !alive(pid) {
			t.Fatal("background child should run on until Close")
		}
		// A background writer never blocks and never breaks the next call.
		start = time.Now()
		res = run(t, s, "yes > /dev/null & (while :; do echo noise; sleep 0.01; done) & echo $! > noisy.pid; echo second")
		if d := time.Since(start); d > time.Minute || !strings.Contains(res.Output, "second\n") {
			t.Fatalf("second call took %v: %q", d, res.Output)
		}
		noisy := hostPid(t, s, readPid(t, filepath.Join(root, "noisy.pid")))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		waitGone(t, pid)
		waitGone(t, noisy)
		if _, err := s.Run(context.Background(), "true", time.Second); err != ErrClosed {
			t.Fatalf("Run after Close: %v", err)
		}
	})
}

func TestCloseKillsProcessesThatLeftTheGroup(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed here")
	}
	s, root := newTestSession(t, ModeOn, nil)
	// A process that moves to its own process group stays in the
	// session, and Close still finds it.
	// It also closes every descriptor it inherited, so no pipe betrays it.
	run(t, s, `python3 -c 'import os,time; os.setpgid(0,0); os.closerange(0, 1024); open("pg.pid","w").write("%d\n" % os.getpid()); time.sleep(100)' &`)
	pid := readPid(t, filepath.Join(root, "pg.pid"))
	if !alive(pid) {
		t.Fatal("not started")
	}
	s.Close()
	waitGone(t, pid)
}

func TestCloseKillsRunningCommand(t *testing.T) {
	s, root := newTestSession(t, ModeOn, nil)
	done := make(chan Result)
	go func() {
		res, _ := s.Run(context.Background(), "echo $$ > sh.pid; sleep 100", time.Minute)
		done <- res
	}()
	pid := readPid(t, filepath.Join(root, "sh.pid"))
	s.Close()
	select {
	case res := <-done:
		if !res.Cancelled {
			t.Fatalf("result %+v", res)
		}
	case <-time.After(time.Minute): // only bounds a hang
		t.Fatal("Run did not return after Close")
	}
	waitGone(t, pid)
}

func TestVanishedCwd(t *testing.T) {
	s, root := newTestSession(t, ModeOn, nil)
	run(t, s, "mkdir gone && cd gone")
	if err := os.Remove(filepath.Join(root, "gone")); err != nil {
		t.Fatal(err)
	}
	res := run(t, s, "pwd")
	if res.Output != root+"\n" || !strings.Contains(res.Notice, "no longer exists") {
		t.Fatalf("result %+v", res)
	}
}

func TestSetRoots(t *testing.T) {
	s, root := newTestSession(t, ModeOn, nil)
	run(t, s, "cd sub")
	if err := s.SetRoots([]string{root + "_evil"}); err != nil {
		t.Fatal(err)
	}
	if s.Cwd() != root+"_evil" {
		t.Fatalf("cwd after SetRoots = %q", s.Cwd())
	}
	if res := run(t, s, "cd "+root); res.RefusedCwd != root {
		t.Fatalf("old root still allowed: %+v", res)
	}
}

func TestRunWithinNarrowsForTheCall(t *testing.T) {
	modes(t, func(t *testing.T, m Mode) {
		s, root := newTestSession(t, m, nil)
		sub := filepath.Join(root, "sub")
		res, err := s.RunWithin(context.Background(), []string{sub}, "pwd; touch ../escaped", 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(res.Output, sub+"\n") {
			t.Fatalf("narrowed call ran in %q", res.Output)
		}
		_, statErr := os.Stat(filepath.Join(root, "escaped"))
		if m == ModeSandboxed && statErr == nil {
			t.Fatal("narrowed sandbox wrote outside the narrowed root")
		}
		if res, _ := s.RunWithin(context.Background(), []string{sub}, "cd ..", 10*time.Second); res.RefusedCwd != root {
			t.Fatalf("cd out of the narrowed root: %+v", res)
		}
		if res, _ := s.RunWithin(context.Background(), []string{root}, "cd .. && cd root && pwd", 10*time.Second); res.Cwd != root {
			t.Fatalf("full roots again: %+v", res)
		}
	})
}

func TestAuthTokenNotPassed(t *testing.T) {
	s, _ := newTestSession(t, ModeOn, append(os.Environ(), "FSMCP_AUTH_TOKEN=secret"))
	if out := run(t, s, "echo \"[$FSMCP_AUTH_TOKEN]\"").Output; out != "[]\n" {
		t.Fatalf("token visible: %q", out)
	}
}

func TestClampTimeout(t *testing.T) {
	for _, c := range []struct{ in, want time.Duration }{
		{0, DefaultTimeout}, {-1, DefaultTimeout}, {time.Second, time.Second}, {time.Hour, MaxTimeout},
	} {
		if got := ClampTimeout(c.in); got != c.want {
			t.Errorf("ClampTimeout(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		path, root string
		want       bool
	}{
		{"/tmp/root", "/tmp/root", true},
		{"/tmp/root/a", "/tmp/root", true},
		{"/tmp/root_evil", "/tmp/root", false},
		{"/tmp/rootx/a", "/tmp/root", false},
		{"/tmp", "/tmp/root", false},
		{"/anything", "/", true},
	} {
		if got := within(c.path, c.root); got != c.want {
			t.Errorf("within(%q, %q) = %v", c.path, c.root, got)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"on", "sandboxed", "off"} {
		if m, err := ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	if _, err := ParseMode("yes"); err == nil {
		t.Error("ParseMode(yes) accepted")
	}
	if _, err := NewSession(Options{Roots: []string{t.TempDir()}, Mode: ModeOff}); err == nil {
		t.Error("NewSession with ModeOff succeeded")
	}
}

// A session id counts as the session's own only while a process seen in
// it earlier (same pid, same start time) is alive: a reused number is
// never killed.
func TestLeftoversIgnoreReusedSessionIDs(t *testing.T) {
	sid, start, ok := procStat(os.Getpid())
	if !ok {
		t.Skip("no /proc here")
	}
	me := member{os.Getpid(), start}
	if !sameSession([]member{me}, []member{{1, 1}, me}) {
		t.Error("same process not recognised")
	}
	if sameSession([]member{{os.Getpid(), start + 1}}, []member{me}) {
		t.Error("a reused pid (other start time) taken for the same process")
	}
	// The test process's own session, as if a command had left it, but
	// with members that are not there any more: forgotten, never killed.
	g := leftovers{sid: {{pid: 1 << 30, start: 1}}}
	g.update(-1)
	if len(g) != 0 {
		t.Fatalf("stale session kept: %v", g)
	}
	g = leftovers{sid: {{pid: 1 << 30, start: 1}}}
	g.killAll() // must not kill this test's own session
}
