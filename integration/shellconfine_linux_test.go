package integration

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/shell"
)

// requireSandbox skips, loudly, where the kernel has no Landlock.
func requireSandbox(t *testing.T) {
	t.Helper()
	if _, ok := shell.Available(); !ok {
		t.Skip("SKIPPED: this kernel has no Landlock, so --shell sandboxed cannot be tested here")
	}
}

// resolvedTempDir is t.TempDir with symlinks resolved, as the server
// reports paths.
func resolvedTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// connectBinary starts the fsmcp binary at bin over stdio with args.
func connectBinary(t *testing.T, bin string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// copyFile copies src to dst with mode.
func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestShellHelperNotTakenFromARoot serves a root that holds the fsmcp
// binary being run (make run's bin/fsmcp; ~/go/bin under ~). The agent
// replaces the binary with a script, through fs_write or through fs_bash;
// the next fs_bash call must still be confined: the helper is a sealed
// copy taken at start, never the path.
func TestShellHelperNotTakenFromARoot(t *testing.T) {
	attack(t)
	requireSandbox(t)
	for _, via := range []string{"fs_write", "fs_bash"} {
		t.Run(via, func(t *testing.T) {
			root, outside := resolvedTempDir(t), resolvedTempDir(t)
			if err := os.Mkdir(filepath.Join(root, "bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			self := filepath.Join(root, "bin", "fsmcp")
			copyFile(t, binary, self, 0o755)
			cs := connectBinary(t, self, "--shell", "sandboxed", root)

			if out, isErr := bash(t, cs, "touch "+outside+"/before"); !isErr {
				t.Fatalf("the shell wrote outside before the swap: %q", out)
			}
			script := "#!/bin/sh\ntouch " + outside + "/pwned\nexit 0\n"
			switch via {
			case "fs_write":
				mustCall(t, cs, "fs_write", map[string]any{"file_path": self, "content": script})
			case "fs_bash":
				// The running binary cannot be written in place (ETXTBSY);
				// it can be replaced.
				if out, isErr := bash(t, cs, "rm -f bin/fsmcp && printf '%s' '"+script+"' > bin/fsmcp && chmod 755 bin/fsmcp && echo swapped"); isErr || out != "swapped" {
					t.Fatalf("swap: %v %q", isErr, out)
				}
			}
			if b, err := os.ReadFile(self); err != nil || string(b) != script {
				t.Fatalf("the binary was not replaced: %v", err)
			}
			os.Chmod(self, 0o755) // fs_write keeps the mode; make sure it is executable

			out, isErr := bash(t, cs, "touch "+outside+"/after; echo inside > in.txt; cat in.txt")
			for _, name := range []string{"pwned", "after", "before"} {
				if _, err := os.Stat(filepath.Join(outside, name)); err == nil {
					t.Fatalf("%s was created outside the root: the shell ran unconfined (%q)", name, out)
				}
			}
			if !strings.Contains(out, "inside") {
				t.Fatalf("the shell no longer runs: %v %q", isErr, out)
			}
		})
	}
}

// bwrapWorks reports whether bubblewrap can make user, pid and mount
// namespaces here, as the server's probe does.
func bwrapWorks() bool {
	cmd := exec.Command("bwrap", "--unshare-user", "--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true")
	return cmd.Run() == nil
}

// sizeShown matches the victim's size (12) as a word of its own, as
// stat -c %s or ls -l print it (not as digits of a temp dir's name).
var sizeShown = regexp.MustCompile(`(^|\s)12(\s|$)`)

// TestShellCannotChangeOrStatOutside: through the built binary, fs_bash
// cannot chmod, chown, touch, set xattrs on or stat a file outside the
// roots, where it gets its own namespaces; stderr says which confinement
// is in force.
func TestShellCannotChangeOrStatOutside(t *testing.T) {
	attack(t)
	requireSandbox(t)
	root, outside := resolvedTempDir(t), resolvedTempDir(t)
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("SECRET-SIZED"), 0o640); err != nil {
		t.Fatal(err)
	}
	past := time.Date(2020, 5, 5, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(victim, past, past); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(victim)
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd := exec.Command(binary, "--shell", "sandboxed", root)
	cmd.Stderr = io.MultiWriter(stderr, &testLog{t: t, prefix: "fsmcp: "})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	defer cs.Close()

	// stderr arrives through a copying goroutine: wait for the line (the
	// minute only bounds a hang).
	for i := 0; i < 6000 && !strings.Contains(stderr.String(), "shell_confinement="); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	switch log := stderr.String(); {
	case strings.Contains(log, "shell_confinement=bwrap+landlock"):
	case strings.Contains(log, "shell_confinement=userns+landlock"):
		// No bwrap in the system's directories: fsmcp made the namespaces
		// itself, and the attacks below must fail the same way.
	case !bwrapWorks() && strings.Contains(log, "shell_confinement=landlock"):
		t.Skip("SKIPPED: bwrap cannot make user namespaces here, so the shell is confined by Landlock alone, which cannot stop chmod, chown, utimes, setxattr or stat outside the roots; stderr says so")
	default:
		t.Fatalf("stderr does not state the shell's confinement as bwrap+landlock or userns+landlock:\n%s", log)
	}

	for _, c := range []string{
		"chmod 4777 " + victim,
		"chmod 000 " + outside,
		"chown 1:1 " + victim,
		"touch -d 2001-01-01 " + victim,
		`python3 -c "import os; os.setxattr('` + victim + `', 'user.fsmcp', b'1')"`,
		"stat " + victim,
		"stat -c %s " + victim,
		"ls -ln " + outside,
	} {
		out, isErr := bash(t, cs, c)
		if !isErr {
			t.Errorf("%s succeeded: %q", c, out)
		}
		if strings.Contains(out, "Size:") || sizeShown.MatchString(out) || strings.Contains(out, "victim ") {
			t.Errorf("%s showed the file: %q", c, out)
		}
	}
	after, err := os.Stat(victim)
	if err != nil {
		t.Fatal(err)
	}
	if after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) ||
		after.Sys().(*syscall.Stat_t).Uid != before.Sys().(*syscall.Stat_t).Uid {
		t.Errorf("the file outside changed: %v %v -> %v %v", before.Mode(), before.ModTime(), after.Mode(), after.ModTime())
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() == 0 {
		t.Errorf("the directory outside changed: %v %v", fi.Mode(), err)
	}
	if _, err := unix.Getxattr(victim, "user.fsmcp", make([]byte, 8)); err == nil {
		t.Error("an xattr was set outside")
	}
	// The shell still works: tools from the system, the working directory.
	if out, isErr := bash(t, cs, "mkdir -p d && cd d && git init -q . && git status --short && pwd"); isErr || out != filepath.Join(root, "d") {
		t.Errorf("the shell does not work: %v %q", isErr, out)
	}
	if out, isErr := bash(t, cs, "pwd"); isErr || out != filepath.Join(root, "d") {
		t.Errorf("the working directory did not persist: %v %q", isErr, out)
	}
}

// TestShellNamespaceDiesWithKilledServer: when fsmcp is killed with
// SIGKILL (no Close runs), the session's pid namespace ends with it, and
// with it a background process that left the process-session tracking.
func TestShellNamespaceDiesWithKilledServer(t *testing.T) {
	requireSandbox(t)
	if !bwrapWorks() {
		t.Skip("SKIPPED: bwrap cannot make user namespaces here; without them background processes outlive a killed fsmcp (see README)")
	}
	root := resolvedTempDir(t)
	url, cmd := startHTTP(t, modes(t)[0], "--shell", "sandboxed", root)
	cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, sessionEra)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	sleep, arg := sleeper()
	bash(t, cs, "setsid "+sleep+" > /dev/null 2>&1 &")
	pid := sleeperStarted(t, arg)
	cmd.Process.Kill()
	waitGone(t, pid)
}
