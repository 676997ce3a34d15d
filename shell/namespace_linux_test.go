package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// requireNamespaces skips, loudly, where the sandboxed shell cannot have
// its own namespaces (no bwrap, or user namespaces disabled).
func requireNamespaces(t *testing.T) {
	t.Helper()
	requireLandlock(t)
	if bw, why := namespaces(); bw == nil {
		t.Skipf("SKIPPED: the sandboxed shell runs without namespaces here (%s): Landlock alone cannot stop chmod, chown, utimes, setxattr or stat outside the roots", why)
	}
}

// TestSandboxCannotChangeOrProbeOutside: Landlock has no right for chmod,
// chown, utimes, xattrs or stat, so in the shell's own mount namespace
// nothing outside the roots exists for them.
func TestSandboxCannotChangeOrProbeOutside(t *testing.T) {
	requireNamespaces(t)
	s, _, home := sandboxWithHome(t)
	if s.ns == nil {
		t.Fatal("the session has no namespaces although they work here")
	}
	cannotChangeOrProbeOutside(t, s, home)
}

// forceGoNamespaces makes this test's sessions run as where bwrap is
// missing: the helper makes the namespaces itself.
func forceGoNamespaces(t *testing.T) {
	t.Helper()
	requireLandlock(t)
	reset := func(dirs []string) {
		bwrapDirs = dirs
		nsState.once = sync.Once{}
		nsState.bwrap, nsState.goNS, nsState.why = nil, false, ""
	}
	saved := bwrapDirs
	reset([]string{"/nonexistent"})
	t.Cleanup(func() { reset(saved) })
	if !goNamespaces() {
		t.Skipf("SKIPPED: fsmcp cannot make user namespaces here (%s)", nsState.why)
	}
	if got := Confinement(ModeSandboxed); got != "userns+landlock" {
		t.Fatalf("confinement %q", got)
	}
}

// TestGoNamespaceCannotChangeOrProbeOutside: without bwrap, the
// namespaces fsmcp makes itself hide the outside as well.
func TestGoNamespaceCannotChangeOrProbeOutside(t *testing.T) {
	forceGoNamespaces(t)
	s, root, home := sandboxWithHome(t)
	if s.ns != nil || s.nsRoot == "" {
		t.Fatal("the session does not use fsmcp's own namespaces")
	}
	cannotChangeOrProbeOutside(t, s, home)
	for _, c := range []struct{ cmd, want string }{
		{"git init -q . && git status --short && echo ok", "ok\n"},
		{"go version", "go version go"},
		{"python3 -c 'print(1)'", "1\n"},
		{"chmod 755 /usr/bin/env", "Read-only file system"},
		{"cat <(echo substituted)", "substituted\n"},
		{"mkdir -p d && cd d && pwd", root + "/d\n"},
		{"pwd", root + "/d\n"},
	} {
		if res := run(t, s, c.cmd); !strings.Contains(res.Output, c.want) {
			t.Errorf("%s: %q", c.cmd, res.Output)
		}
	}
}

func cannotChangeOrProbeOutside(t *testing.T, s *Session, home string) {
	t.Helper()
	outside := filepath.Join(home, "victim")
	dir := filepath.Join(home, "dir")
	if err := os.WriteFile(outside, []byte("data"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	past := time.Date(2020, 5, 5, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(outside, past, past); err != nil {
		t.Fatal(err)
	}
	before := statOf(t, outside)
	dirBefore := statOf(t, dir)
	key := filepath.Join(home, ".ssh", "id_rsa")

	setxattr := `python3 -c "import os; os.setxattr('` + outside + `', 'user.fsmcp', b'1')"`
	if _, err := exec.LookPath("setfattr"); err == nil {
		setxattr = "setfattr -n user.fsmcp -v 1 " + outside
	}
	for _, c := range []struct{ name, cmd string }{
		{"chmod set-uid", "chmod 4777 " + outside},
		{"chmod a directory", "chmod 000 " + dir},
		{"chown", "chown 1:1 " + outside},
		{"touch -d", "touch -d 2001-01-01 " + outside},
		{"setxattr", setxattr},
		{"stat", "stat " + key},
		{"stat a directory", "stat -c %s:%U " + dir},
		{"ls -l", "ls -l " + key},
		{"test -e", "test -e " + key + " && echo exists"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, s, c.cmd)
			if res.ExitCode == 0 {
				t.Fatalf("%s succeeded:\n%s", c.cmd, res.Output)
			}
			if strings.Contains(res.Output, "id_rsa") && !strings.Contains(res.Output, "No such file") {
				t.Fatalf("%s showed the file:\n%s", c.cmd, res.Output)
			}
			for _, leak := range []string{"Size:", "Uid:", "exists"} {
				if strings.Contains(res.Output, leak) {
					t.Fatalf("%s leaked %q:\n%s", c.cmd, leak, res.Output)
				}
			}
			// The key's size as a word of its own (not digits of a temp dir's name).
			if regexp.MustCompile(fmt.Sprintf(`(^|[\s:])%d(\s|$)`, len("PRIVATE KEY"))).MatchString(res.Output) {
				t.Fatalf("%s leaked the size:\n%s", c.cmd, res.Output)
			}
		})
	}
	after, dirAfter := statOf(t, outside), statOf(t, dir)
	if after.Mode != before.Mode || after.Uid != before.Uid || after.Gid != before.Gid || after.Mtim != before.Mtim {
		t.Errorf("the file outside changed: mode %o->%o owner %d:%d->%d:%d mtime %v->%v",
			before.Mode, after.Mode, before.Uid, before.Gid, after.Uid, after.Gid, before.Mtim, after.Mtim)
	}
	if dirAfter.Mode != dirBefore.Mode {
		t.Errorf("the directory outside changed mode: %o -> %o", dirBefore.Mode, dirAfter.Mode)
	}
	if n, err := unix.Getxattr(outside, "user.fsmcp", make([]byte, 8)); err == nil {
		t.Errorf("an xattr was set outside (%d bytes)", n)
	}
	// Inside the root the same commands work.
	if res := run(t, s, "touch f && chmod 600 f && touch -d 2001-01-01 f && stat -c %a f"); res.Output != "600\n" {
		t.Errorf("inside the root: %q", res.Output)
	}
}

func statOf(t *testing.T, path string) syscall.Stat_t {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSandboxNamespaceKeepsBackgroundUntilClose: the pid namespace is the
// session's; a setsid'd process, which leaves the process-session
// tracking, still dies with Close.
func TestSandboxNamespaceKeepsBackgroundUntilClose(t *testing.T) {
	requireNamespaces(t)
	s, root := newTestSession(t, ModeSandboxed, nil)
	run(t, s, "setsid sleep 100 > /dev/null 2>&1 & echo $! > bg.pid")
	pid := hostPid(t, s, readPid(t, filepath.Join(root, "bg.pid")))
	if res := run(t, s, "echo next"); res.Output != "next\n" || !alive(pid) {
		t.Fatalf("the background process should run on between calls: %q alive %v", res.Output, alive(pid))
	}
	s.Close()
	waitGone(t, pid)
}

// TestSandboxSurvivesTheStartingThreadEnding: PR_SET_PDEATHSIG fires when
// the forking thread ends, and a goroutine that ends while locked to its
// thread (as confine's do after starting rg) ends that thread. A session
// started there must keep its namespace holder and its background
// processes.
func TestSandboxSurvivesTheStartingThreadEnding(t *testing.T) {
	requireLandlock(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	type started struct {
		s   *Session
		tid int
		err error
	}
	c := make(chan started)
	var attempt func()
	attempt = func() {
		runtime.LockOSThread()
		if unix.Gettid() == os.Getpid() {
			// The main thread is never ended, only parked: try again
			// elsewhere, holding this one so the retry cannot land on it.
			defer runtime.UnlockOSThread()
			done := make(chan struct{})
			go func() { attempt(); close(done) }()
			<-done
			return
		}
		// Never unlocked: the thread ends with the goroutine.
		s, err := NewSession(Options{Roots: []string{base}, Mode: ModeSandboxed})
		if err == nil {
			_, err = s.Run(context.Background(), "sleep 100 > /dev/null 2>&1 & echo $! > bg.pid", time.Minute)
		}
		c <- started{s, unix.Gettid(), err}
	}
	go attempt()
	st := <-c
	if st.err != nil {
		t.Fatal(st.err)
	}
	defer st.s.Close()
	for i := 0; i < 6000; i++ { // the thread has ended, and sent its death signals
		if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", st.tid)); err != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	pid := hostPid(t, st.s, readPid(t, filepath.Join(base, "bg.pid")))
	if res := run(t, st.s, "echo still"); res.Output != "still\n" || !alive(pid) {
		t.Fatalf("after the starting thread ended: %q, background alive %v", res.Output, alive(pid))
	}
}

// pidNSOf reports the pid namespace of process pid, as its inode.
func pidNSOf(pid int) (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/"+strconv.Itoa(pid)+"/ns/pid", &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}

// hostPid maps a pid seen inside the session's pid namespace (what $!
// says) to fsmcp's view; without namespaces it is the same number.
func (s *Session) hostPid(nspid int) (int, error) {
	if s.ns == nil {
		return nspid, nil
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(s.ns.pid.Fd()), &st); err != nil {
		return 0, err
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	want := strconv.Itoa(nspid)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ino, err := pidNSOf(pid); err != nil || ino != st.Ino {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "NSpid:" && f[len(f)-1] == want {
				return pid, nil
			}
		}
	}
	return 0, errors.New("no such process in the session's namespace")
}
