//go:build linux

package shell

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// sandboxWithHome is a sandboxed session whose HOME is a directory
// outside the roots holding a fake ~/.ssh/id_rsa.
func sandboxWithHome(t *testing.T) (s *Session, root, home string) {
	t.Helper()
	requireLandlock(t)
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	// git fails outright when ~/.gitconfig exists and cannot be read.
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Sandboxed Dev\n\temail = dev@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, root = newTestSession(t, ModeSandboxed, append(os.Environ(), "HOME="+home))
	return s, root, home
}

func TestSandboxDeniesOutsideTheRoots(t *testing.T) {
	s, root, home := sandboxWithHome(t)
	outside := filepath.Join(os.TempDir(), fmt.Sprintf("fsmcp-escape-%d", os.Getpid()))
	defer os.Remove(outside)
	for _, c := range []struct{ name, cmd string }{ // a case whose first word is not installed is skipped
		{"read /etc/hostname", "cat /etc/hostname"},
		{"read /etc/shadow", "cat /etc/shadow"},
		{"list ~/.ssh", "ls ~/.ssh"},
		{"list ~", "ls ~"},
		{"write ~/.gitconfig", "echo x >> ~/.gitconfig"},
		{"read ~/.ssh/id_rsa", "cat ~/.ssh/id_rsa"},
		{"delete ~/.ssh", "rm -r " + home + "/.ssh"},
		{"write /tmp outside the private temp dir", "echo x > " + outside},
		{"write the prefix-sharing sibling", "echo x > " + root + "_evil/pwn"},
		{"list /", "ls /"},
		{"list /tmp", "ls /tmp"},
		{"read through a symlink in the root", "ln -s /etc/hostname link && cat link"},
		{"hard link a file in", "ln /etc/passwd hardlink"},
		{"copy out of /etc", "cp /etc/hostname ."},
		{"redirect from /etc", "exec 9</etc/hostname && cat <&9"},
		{"read /proc", "cat /proc/self/status"},
		{"read another process's environment", "python3 -c \"open('/proc/1/environ').read()\""},
		{"list /sys", "ls /sys"},
		{"write /dev/shm", "echo x > /dev/shm/fsmcp-escape"},
		{"open the terminal", "echo x > /dev/tty"},
		{"new mount namespace", "unshare -m true"},
		{"chroot", "chroot / ls"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if tool := strings.Fields(c.cmd)[0]; tool != "echo" && tool != "exec" {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s is not installed here", tool)
				}
			}
			res := run(t, s, c.cmd)
			if res.ExitCode == 0 {
				t.Fatalf("%s succeeded:\n%s", c.cmd, res.Output)
			}
			if s.namespaced() && strings.Contains(res.Output, "No such file or directory") {
				return // in the shell's own mount namespace, it does not exist
			}
			if !strings.Contains(res.Output, "Permission denied") && !strings.Contains(res.Output, "Operation not permitted") &&
				!strings.Contains(res.Output, "Invalid cross-device link") && !strings.Contains(res.Output, "No such device") &&
				!strings.Contains(res.Output, "Read-only file system") {
				t.Fatalf("%s failed for another reason:\n%s", c.cmd, res.Output)
			}
		})
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s was created", outside)
	}
	if _, err := os.Stat(filepath.Join(home, ".ssh", "id_rsa")); err != nil {
		t.Errorf("~/.ssh/id_rsa: %v", err)
	}
	if _, err := os.Stat(root + "_evil/pwn"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sibling written")
	}
}

func TestSandboxToolsWork(t *testing.T) {
	s, root, _ := sandboxWithHome(t)
	if err := os.WriteFile(filepath.Join(root, "Makefile"), []byte("all:\n\t@echo made\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, cmd, want string }{
		{"ls", "ls", "Makefile\nsub\n"},
		{"git", "git init -q . && git status --short", "?? Makefile\n"},
		{"git", "git commit -q --allow-empty -m first && git log --format=%an", "Sandboxed Dev\n"},
		{"go", "go version", "go version go"},
		{"rg", "rg --version", "ripgrep"},
		{"python3", "python3 -c 'print(1)'", "1\n"},
		{"make", "make", "made\n"},
		{"", "echo tmp > $TMPDIR/f && cat $TMPDIR/f", "tmp\n"},
		{"", "mkdir -p a b && touch a/f && mv a/f b/f && ls b", "f\n"},
		{"", "cat <(echo process substitution) > /dev/null && echo ok > /dev/stderr", "ok\n"},
		{"", "date +%Y >/dev/null && id -un", ""},
	} {
		name := c.tool
		if name == "" {
			name = c.cmd
		}
		t.Run(name, func(t *testing.T) {
			if c.tool != "" {
				if _, err := exec.LookPath(c.tool); err != nil {
					t.Skipf("%s is not installed here", c.tool)
				}
			}
			res := run(t, s, c.cmd)
			if res.ExitCode != 0 || !strings.Contains(res.Output, c.want) {
				t.Fatalf("%s: exit %d\n%s", c.cmd, res.ExitCode, res.Output)
			}
		})
	}
	t.Run("go build", func(t *testing.T) {
		if _, err := exec.LookPath("go"); err != nil {
			t.Skip("go is not installed here")
		}
		// The caller's exported build cache is outside the sandbox: the
		// shell must use its own instead of failing on this one.
		callerCache := t.TempDir()
		gs, _ := newTestSession(t, ModeSandboxed, append(os.Environ(), "HOME="+t.TempDir(), "GOCACHE="+callerCache))
		cmd := `mkdir -p app && cd app && printf 'module ex\n\ngo 1.21\n' > go.mod && printf 'package main\n\nfunc main() { println("built") }\n' > main.go && go build -o app . && ./app`
		// A cold go build takes tens of seconds on a loaded machine: the
		// timeout only bounds a hang.
		res, err := gs.Run(context.Background(), cmd, 10*time.Minute)
		if err != nil || res.ExitCode != 0 || res.Output != "built\n" {
			t.Fatalf("%v: exit %d\n%s", err, res.ExitCode, res.Output)
		}
		if ents, _ := os.ReadDir(callerCache); len(ents) != 0 {
			t.Errorf("the caller's GOCACHE was written to: %v", ents)
		}
	})
}

func TestSandboxCannotSignalOutside(t *testing.T) {
	s, _, _ := sandboxWithHome(t)
	if abi, _ := Available(); abi < 6 {
		t.Skipf("signal scoping needs Landlock ABI 6, kernel has %d", abi)
	}
	if errata, _ := llsys.LandlockGetErrata(); errata&2 == 0 {
		t.Skip("kernel lacks the signal-scoping erratum fix, so go-landlock does not scope signals")
	}
	res := run(t, s, fmt.Sprintf("kill -0 %d", os.Getpid()))
	if s.ns != nil && res.ExitCode != 0 && strings.Contains(res.Output, "No such process") {
		// In the session's pid namespace fsmcp has no number; a process
		// that reached fsmcp's pid would be the test's own pid inside.
	} else if res.ExitCode == 0 || !strings.Contains(res.Output, "Operation not permitted") {
		t.Fatalf("signalled fsmcp: exit %d %s", res.ExitCode, res.Output)
	}
	// Inside the sandbox signals still work.
	if res := run(t, s, "sleep 10 & kill $! && wait $!; echo $?"); res.Output != "143\n" {
		t.Fatalf("kill inside: %q", res.Output)
	}
}

func TestSandboxCannotReachAbstractSocketOutside(t *testing.T) {
	s, _, _ := sandboxWithHome(t)
	if abi, _ := Available(); abi < 6 {
		t.Skipf("abstract unix socket scoping needs Landlock ABI 6, kernel has %d", abi)
	}
	name := fmt.Sprintf("fsmcp-test-%d", os.Getpid())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed here")
	}
	connect := fmt.Sprintf(`python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('\0%s'); print('connected')"`, name)
	if res := run(t, s, connect); res.ExitCode == 0 || !strings.Contains(res.Output, "Operation not permitted") {
		t.Fatalf("connected to an abstract socket outside: exit %d %s", res.ExitCode, res.Output)
	}
	// The same connection from an unconfined shell works, so the denial
	// above is the sandbox's doing.
	on, _ := newTestSession(t, ModeOn, nil)
	if res := run(t, on, connect); res.Output != "connected\n" {
		t.Fatalf("unconfined connect: %s", res.Output)
	}
}

func TestSandboxFailsClosed(t *testing.T) {
	requireLandlock(t)
	a, b := t.TempDir(), t.TempDir()
	s, err := NewSession(Options{Roots: []string{a, b}, Mode: ModeSandboxed})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A root that vanished cannot be put in a rule: the helper must
	// refuse to run the command rather than run it with fewer rules.
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	res := run(t, s, "echo ran")
	if res.ExitCode != 126 || strings.Contains(res.Output, "ran\n") || !strings.Contains(res.Output, "the command was not run") {
		t.Fatalf("exit %d\n%s", res.ExitCode, res.Output)
	}
}

func TestSandboxTempDirRemovedOnClose(t *testing.T) {
	s, _, _ := sandboxWithHome(t)
	tmp := s.TempDir()
	if res := run(t, s, "touch $TMPDIR/a && echo $TMPDIR"); res.Output != tmp+"\n" {
		t.Fatalf("TMPDIR = %q, want %q", res.Output, tmp)
	}
	s.Close()
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temp dir left behind: %v", err)
	}
}

func TestPolicy(t *testing.T) {
	home := t.TempDir()
	p := newPolicy([]string{"/r1", "/r2"}, "/t", []string{"HOME=" + home, "PATH=/usr/bin"})
	if got := strings.Join(p.RW, " "); got != "/r1 /r2 /t" {
		t.Errorf("RW = %s", got)
	}
	for _, list := range [][]string{p.RX, p.RO, p.Dev} {
		for _, d := range list {
			if d == home+"/.gitconfig" || d == home+"/.config/git" {
				continue // git's configuration, read-only
			}
			if d == "/" || d == "/etc" || d == "/etc/ssl" || d == "/tmp" || d == "/proc" || d == "/dev" || strings.HasPrefix(d, home) {
				t.Errorf("policy grants %s", d)
			}
		}
	}
	if !p.readable("/usr/bin") || p.readable(home) {
		t.Errorf("readable: /usr/bin %v, home %v", p.readable("/usr/bin"), p.readable(home))
	}
}

func TestSandboxPathDropsUnreadableDirs(t *testing.T) {
	requireLandlock(t)
	home, _ := filepath.EvalSymlinks(t.TempDir())
	bin := filepath.Join(home, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "python3"), []byte("#!/bin/sh\necho shim\n"), 0o755)
	// A link farm outside the roots (like a PATH without rg) stays usable.
	farm := filepath.Join(home, "farm")
	os.MkdirAll(farm, 0o755)
	if err := os.Symlink("/bin/echo", filepath.Join(farm, "say")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+home, "PATH="+bin+":"+farm+":/usr/bin:/bin")
	s, _ := newTestSession(t, ModeSandboxed, env)
	res := run(t, s, "echo $PATH; python3 -c 'print(2)'; say linked")
	if res.Output != farm+":/usr/bin:/bin\n2\nlinked\n" {
		t.Fatalf("got %q", res.Output)
	}
}

func TestNoLandlockFailsInsteadOfRunningUnconfined(t *testing.T) {
	saved := landlockABI
	landlockABI = func() (int, error) { return 0, syscall.EOPNOTSUPP }
	defer func() { landlockABI = saved }()
	if err := CheckMode(ModeSandboxed); !errors.Is(err, ErrNoLandlock) {
		t.Fatalf("CheckMode(sandboxed) = %v", err)
	}
	if _, err := NewSession(Options{Roots: []string{t.TempDir()}, Mode: ModeSandboxed}); !errors.Is(err, ErrNoLandlock) {
		t.Fatalf("NewSession(sandboxed) = %v", err)
	}
	if DefaultMode() != ModeOn || CheckMode(ModeOn) != nil {
		t.Fatal("without Landlock the default must be on")
	}
}
