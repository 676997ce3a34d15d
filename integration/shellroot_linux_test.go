package integration

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// The sandboxed shell's walls where fsmcp runs as root: uid 0 in the
// shell's user namespace is the host's root, which owns the host's
// device nodes and whatever it makes in the roots.

// shellBuilder is one way the sandboxed shell gets its namespaces: bwrap's,
// or fsmcp's own where bwrap is missing.
type shellBuilder struct {
	name string   // the shell_confinement stderr states
	wrap []string // the command line the server runs under
}

// shellBuilders are both namespace builders: bwrap where it works here,
// and fsmcp's own, for a server that cannot see bwrap (started in a mount
// namespace of its own in which bwrap in the system's program directories
// is not a program: root only, like the attacks that need it).
func shellBuilders(t *testing.T) []shellBuilder {
	t.Helper()
	requireSandbox(t)
	var out []shellBuilder
	if bwrapWorks() {
		out = append(out, shellBuilder{name: "bwrap+landlock"})
	} else {
		t.Log("SKIPPED for bwrap: bwrap cannot make user namespaces here")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Log("SKIPPED for fsmcp's own namespaces: no unshare(1) to hide bwrap from the server")
	} else {
		hide := `for d in /usr/bin /bin /usr/local/bin; do if [ -e "$d/bwrap" ]; then mount --bind /dev/null "$d/bwrap" || exit 1; fi; done; exec "$@"`
		out = append(out, shellBuilder{name: "userns+landlock", wrap: []string{"unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", hide, "sh"}})
	}
	if len(out) == 0 {
		t.Skip("SKIPPED: neither namespace builder can run here")
	}
	return out
}

// start serves root with the sandboxed shell built by b, and checks that
// stderr names b's confinement.
func (b shellBuilder) start(t *testing.T, root string, args ...string) *mcp.ClientSession {
	t.Helper()
	argv := append(append(append([]string{}, b.wrap...), binary, "--shell", "sandboxed"), args...)
	argv = append(argv, root)
	stderr := &lockedBuffer{}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = io.MultiWriter(stderr, &testLog{t: t, prefix: "fsmcp: "})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	// stderr arrives through a copying goroutine: wait for the line (the
	// minute only bounds a hang).
	for i := 0; i < 6000 && !strings.Contains(stderr.String(), "shell_confinement="); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "shell_confinement="+b.name) {
		t.Fatalf("stderr does not state shell_confinement=%s:\n%s", b.name, stderr)
	}
	return cs
}

// requireRoot skips, saying why, where the tests do not run as root.
func requireRoot(t *testing.T, why string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("SKIPPED: not run as root; " + why)
	}
}

// TestShellCannotChangeTheHostsDevices: as root, the sandboxed shell's
// /dev holds the host's own device nodes, and root owns them. It used to
// chmod, chown and touch them (moving the host's ctime; chmod 600
// /dev/null would have broken the host). Now the nodes are bound
// read-only, in both namespace builders: their metadata cannot change,
// while reading and writing them works as before.
func TestShellCannotChangeTheHostsDevices(t *testing.T) {
	attack(t)
	requireRoot(t, "the host's device nodes belong to root, whom the shell's user namespace does not map, so their mode and owner cannot change anyway")
	devs := []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}
	ctimes := func() map[string]unix.Timespec {
		out := map[string]unix.Timespec{}
		for _, d := range devs {
			var st unix.Stat_t
			if unix.Stat(d, &st) == nil {
				out[d] = st.Ctim
			}
		}
		return out
	}
	for _, b := range shellBuilders(t) {
		t.Run(b.name, func(t *testing.T) {
			cs := b.start(t, resolvedTempDir(t))
			before := ctimes()
			// Each keeps the node's mode and owner as the host has them,
			// so that were it to succeed, only the times move.
			for _, c := range []string{
				"chmod 666 /dev/null",
				"chown 0:0 /dev/zero",
				"chgrp 0 /dev/random",
				"touch -c -r /dev/null /dev/null",
				"touch -c /dev/full",
				"chmod 666 /dev/tty",
				`python3 -c "import os; os.utime('/dev/urandom')"`,
			} {
				if out, isErr := bash(t, cs, c); !isErr {
					t.Errorf("%s succeeded: %q", c, out)
				}
			}
			after := ctimes()
			for _, d := range devs {
				if before[d] != after[d] {
					t.Errorf("the host's %s changed (ctime %v -> %v)", d, before[d], after[d])
				}
			}
			out, isErr := bash(t, cs, "echo x > /dev/null && head -c 5 /dev/zero | wc -c && head -c 5 /dev/urandom | wc -c && { echo x > /dev/full; } 2>&1; true")
			if isErr || !strings.Contains(out, "5\n5") || !strings.Contains(out, "No space left on device") {
				t.Errorf("the devices no longer work: %v %q", isErr, out)
			}
		})
	}
}

// TestShellHoldsNoCapability: the sandboxed shell holds no capability,
// in any set, whoever runs fsmcp. As root, bwrap keeps root's
// capabilities (in the shell's user namespace) unless told otherwise,
// and every command ran with all of them.
func TestShellHoldsNoCapability(t *testing.T) {
	attack(t)
	// capget and PR_CAPBSET_READ from Python: /proc is denied in the shell.
	probe := `python3 -c "
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
hdr = (ctypes.c_uint32 * 2)(0x20080522, 0)
data = (ctypes.c_uint32 * 6)()
if libc.capget(hdr, data) != 0: raise SystemExit('capget failed')
bnd = sum(1 << c for c in range(64) if libc.prctl(23, c, 0, 0, 0) == 1)
amb = sum(1 << c for c in range(64) if libc.prctl(47, 1, c, 0, 0) == 1)
print('eff=%x prm=%x inh=%x bnd=%x amb=%x' % (data[0] | data[3] << 32, data[1] | data[4] << 32, data[2] | data[5] << 32, bnd, amb))
"`
	for _, b := range shellBuilders(t) {
		t.Run(b.name, func(t *testing.T) {
			cs := b.start(t, resolvedTempDir(t))
			if out, isErr := bash(t, cs, probe); isErr || out != "eff=0 prm=0 inh=0 bnd=0 amb=0" {
				t.Errorf("the shell's capabilities: %v %q; want none", isErr, out)
			}
		})
	}
}

// TestShellMakesNoSetIDFile: the sandboxed shell cannot make a set-uid or
// set-gid file in a root, by any call that takes a mode (chmod in every
// form, a creating open, mknod), nor give a program a file capability.
// As root it used to: chmod 4755 on a copy of a program left a set-uid
// root program in the project for anyone who runs it later, outside the
// sandbox. Other modes, the sticky bit among them, are set as before.
func TestShellMakesNoSetIDFile(t *testing.T) {
	attack(t)
	for _, b := range shellBuilders(t) {
		t.Run(b.name, func(t *testing.T) {
			root := resolvedTempDir(t)
			cs := b.start(t, root)
			f := func(name string) string { return filepath.Join(root, name) }
			for _, c := range []string{
				"cp /usr/bin/id " + f("a") + " && chmod 4755 " + f("a"),
				"cp /usr/bin/id " + f("b") + " && chmod u+s " + f("b"),
				"cp /usr/bin/id " + f("c") + " && chmod g+s " + f("c"),
				"install -m 2755 /usr/bin/id " + f("d"),
				"mkdir " + f("e") + " && chmod 2775 " + f("e"),
				pyMode(`fd = os.open(P, os.O_CREAT | os.O_WRONLY, 0o4755)`, f("f")),
				pyMode(`fd = os.open(P, os.O_CREAT | os.O_WRONLY, 0o755); os.fchmod(fd, 0o6755)`, f("g")),
				pyMode(`os.close(os.open(P, os.O_CREAT | os.O_WRONLY, 0o755)); os.chmod(P, 0o4755)`, f("h")),
				pyMode(`os.close(os.open(P, os.O_CREAT | os.O_WRONLY, 0o755)); os.chmod(P, 0o4755, follow_symlinks=False)`, f("i")),
				pyMode(`os.close(os.open(P, os.O_CREAT | os.O_WRONLY, 0o755)); assert libc.syscall(452, -100, P.encode(), 0o4755, 0) == 0`, f("j")),
				pyMode(`os.mknod(P, 0o104755)`, f("k")),
				pyMode(`assert libc.syscall(85, P.encode(), 0o4755) >= 0`, f("l")), // creat, amd64
				pyMode(`fd = os.open(os.path.dirname(P), os.O_TMPFILE | os.O_WRONLY, 0o4755); os.fchmod(fd, 0o4755)`, f("m")),
				// cap_setuid, effective: a set-uid program by other means.
				"cp /usr/bin/id " + f("n") + ` && python3 -c "import os; os.setxattr('` + f("n") + `', 'security.capability', bytes([1, 0, 0, 2, 128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))"`,
			} {
				if out, isErr := bash(t, cs, c); !isErr {
					t.Errorf("%s succeeded: %q", c, out)
				}
			}
			entries, err := os.ReadDir(root)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				var st unix.Stat_t
				if err := unix.Lstat(f(e.Name()), &st); err != nil {
					t.Fatal(err)
				}
				if st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0 && st.Mode&unix.S_IFMT != unix.S_IFDIR {
					t.Errorf("%s was made with mode %o", e.Name(), st.Mode)
				}
				if _, err := unix.Lgetxattr(f(e.Name()), "security.capability", make([]byte, 64)); err == nil {
					t.Errorf("%s was given a file capability", e.Name())
				}
			}
			if fi, err := os.Stat(f("e")); err == nil && fi.Mode()&os.ModeSetgid != 0 {
				t.Errorf("the directory e was made set-gid")
			}
			// What a project does with modes still works.
			if out, isErr := bash(t, cs, "cp /usr/bin/id x && chmod 755 x && install -m 700 x y && mkdir -m 1777 sticky && chmod o-w sticky && chmod 1777 sticky && "+
				pyMode(`os.close(os.open(P, os.O_CREAT | os.O_WRONLY, 0o640))`, f("z"))+" && stat -c %a x y sticky z"); isErr || out != "755\n700\n1777\n640" {
				t.Errorf("ordinary modes: %v %q", isErr, out)
			}
		})
	}
}

// pyMode is a python3 command running code with P the path and libc loaded.
func pyMode(code, path string) string {
	return `python3 -c "import os, ctypes; libc = ctypes.CDLL(None, use_errno=True); P = '` + path + `'; ` + code + `"`
}
