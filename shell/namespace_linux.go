package shell

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Landlock decides what the shell may open, but not what it may stat,
// chmod, chown, touch or set xattrs on: those take no Landlock right. So
// where the kernel allows unprivileged user namespaces, each command also
// runs in a mount namespace of its own, built by bubblewrap (bwrap, as
// Flatpak and Claude Code do): a private root on a tmpfs holding the
// roots (read-write), the system's program and library trees and the few
// /etc files of the policy (read-only), a private /tmp with the session's
// temp dir, a fresh /dev and a /proc of its own pid namespace. Nothing
// else exists there to probe or change. Landlock is applied inside it,
// by the helper, as the second wall.
//
// The pid namespace belongs to the session, not to one call: a holder
// process (the helper, waiting on a pipe) keeps it alive from NewSession
// to Close, and each call's bwrap joins it (and its user namespace), so
// what a command leaves in the background runs on until Close, as
// without namespaces. Each call gets a fresh mount namespace, with the
// roots in force for that call.
//
// bwrap itself is run from a sealed copy, like the helper: it is looked
// up once, in the system's program directories only (bwrapDirs), never
// on a PATH that may lead into a root.

// bwrapDirs are where bwrap is looked for.
var bwrapDirs = []string{"/usr/bin", "/bin", "/usr/local/bin"}

const (
	holdArg  = "__fsmcp_sandbox_hold"  // the helper as a session's namespace holder
	probeArg = "__fsmcp_sandbox_probe" // the helper checking, at start, that a joined namespace runs
)

var nsState struct {
	once  sync.Once
	bwrap *os.File // sealed copy of bwrap; nil when bwrap is not used
	goNS  bool     // without bwrap: the helper makes the namespaces itself
	why   string   // why bwrap is not used, for the start-up line
}

// goNamespaces reports whether, bwrap being unusable, the helper builds
// the namespaces itself (see gonamespace_linux.go).
func goNamespaces() bool {
	namespaces()
	return nsState.goNS
}

// namespaces returns the sealed bwrap when the shell runs in namespaces
// here, else nil and why not. The first call probes: it starts a holder
// and runs the helper in a joined namespace.
func namespaces() (*os.File, string) {
	nsState.once.Do(func() {
		defer func() {
			if nsState.bwrap == nil {
				if err := probeGo(); err != nil {
					nsState.why += fmt.Sprintf("; nor can fsmcp make the namespaces itself (%v)", err)
				} else {
					nsState.goNS = true
				}
			}
		}()
		bin, err := lookPath("bwrap", strings.Join(bwrapDirs, ":"))
		if err != nil {
			nsState.why = "bwrap (Debian/Ubuntu package bubblewrap) is not installed in " + strings.Join(bwrapDirs, ", ")
			return
		}
		bw, err := sealCopy(bin)
		if err != nil {
			nsState.why = fmt.Sprintf("sealed copy of %s: %v", bin, err)
			return
		}
		helper, err := sealedHelper()
		if err != nil {
			bw.Close()
			nsState.why = err.Error()
			return
		}
		if err := probe(bw, helper); err != nil {
			bw.Close()
			nsState.why = fmt.Sprintf("%s cannot make a user namespace here (%v); unprivileged user namespaces may be disabled (kernel.unprivileged_userns_clone, user.max_user_namespaces, AppArmor's apparmor_restrict_unprivileged_userns)", bin, err)
			return
		}
		nsState.bwrap = bw
	})
	return nsState.bwrap, nsState.why
}

// probe starts a holder and runs the helper once in its namespaces.
func probe(bw, helper *os.File) error {
	h, err := startHolder(bw, helper, policy{RX: systemRX, RO: systemRO})
	if err != nil {
		return err
	}
	defer h.stop()
	argv, extra := h.wrap([]string{helperPath(4), probeArg}, []*os.File{nil, helper}, nsMounts{pol: policy{RX: systemRX, RO: systemRO}, cwd: "/"})
	out := &lastBytes{limit: 4096}
	cmd := &exec.Cmd{Path: argv[0], Args: argv, Stdout: out, Stderr: out, ExtraFiles: extra, SysProcAttr: sysProcAttr()}
	if err := runBounded(cmd, time.Minute); err != nil {
		return fmt.Errorf("%v: %s", err, bytes.TrimSpace(out.buf))
	}
	return nil
}

// runBounded runs cmd and kills it if it has not ended after d.
func runBounded(cmd *exec.Cmd, d time.Duration) error {
	if err := start(cmd); err != nil {
		return err
	}
	timer := time.AfterFunc(d, func() { cmd.Process.Kill() })
	defer timer.Stop()
	return cmd.Wait()
}

// holder keeps a session's user and pid namespaces alive.
type holder struct {
	bwrap *os.File
	cmd   *exec.Cmd
	stdin *os.File // closing it ends the holder
	user  *os.File // /proc/<pid 1>/ns/user
	pid   *os.File // /proc/<pid 1>/ns/pid
}

// startHolder starts bwrap in a new user and pid namespace running the
// helper as holder, which sends back the two namespaces for later calls to
// join. pol names the system directories the helper needs to start.
//
// Nothing of bwrap's own talks back to fsmcp, and bwrap does not die with
// it: bwrap holds its cloned child until it has written the child's id
// maps, and a bwrap killed in between (by a parent-death signal, or by a
// write to a pipe whose reader died) leaves that child waiting forever,
// an orphan outside any namespace that could end it. So when fsmcp dies,
// bwrap finishes starting the holder, whose stdin then ends (or whose
// send fails), and everything exits by itself.
func startHolder(bw, helper *os.File, pol policy) (*holder, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	ours, theirs := os.NewFile(uintptr(pair[0]), "holder"), os.NewFile(uintptr(pair[1]), "holder")
	defer ours.Close()
	// fd 3: the helper; 4: bwrap.
	args := []string{"bwrap", "--unshare-user", "--unshare-pid", "--die-with-parent"}
	args = append(args, systemMounts(pol)...)
	args = append(args, "--chdir", "/", "--", helperPath(3), holdArg)
	errBuf := &lastBytes{limit: 4096}
	cmd := &exec.Cmd{
		Path:        helperPath(4),
		Args:        args,
		Stdin:       inR,
		Stdout:      theirs,
		Stderr:      errBuf,
		ExtraFiles:  []*os.File{helper, bw},
		SysProcAttr: &syscall.SysProcAttr{Setsid: true}, // no Pdeathsig: see above
	}
	err = start(cmd)
	inR.Close()
	theirs.Close()
	if err != nil {
		inW.Close()
		return nil, err
	}
	h := &holder{bwrap: bw, cmd: cmd, stdin: inW}
	fail := func(err error) (*holder, error) {
		h.stop()
		if msg := bytes.TrimSpace(errBuf.buf); len(msg) > 0 {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return nil, err
	}
	// The holder sends once it runs, which is after bwrap has written its
	// id maps (a call joining before then fails). The minute only bounds
	// a hang.
	if h.user, h.pid, err = receiveNamespaces(ours, time.Minute); err != nil {
		return fail(fmt.Errorf("the namespace holder did not start (%v)", err))
	}
	return h, nil
}

// receiveNamespaces reads the holder's one message from sock: its user
// and pid namespaces.
func receiveNamespaces(sock *os.File, d time.Duration) (user, pid *os.File, err error) {
	c, err := net.FileConn(sock)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, nil, fmt.Errorf("not a unix socket")
	}
	uc.SetReadDeadline(time.Now().Add(d))
	var b [1]byte
	oob := make([]byte, unix.CmsgSpace(2*4))
	n, oobn, _, _, err := uc.ReadMsgUnix(b[:], oob)
	if err != nil {
		return nil, nil, err
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
		fds, _ = unix.ParseUnixRights(&msgs[0])
	}
	if n != 1 || len(fds) != 2 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, nil, fmt.Errorf("no namespaces received")
	}
	return os.NewFile(uintptr(fds[0]), "ns/user"), os.NewFile(uintptr(fds[1]), "ns/pid"), nil
}

// stop ends the holder, and with it the pid namespace: every process
// still in it is killed by the kernel. bwrap's whole process group is
// killed, so that a child it has cloned but not yet released dies too.
func (h *holder) stop() {
	h.stdin.Close()
	syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
	h.cmd.Wait()
	if h.user != nil {
		h.user.Close()
	}
	if h.pid != nil {
		h.pid.Close()
	}
}

// nsMounts is what one call's mount namespace holds besides the system.
type nsMounts struct {
	pol   policy
	roots []string // read-write, at their own names
	dirs  []*os.File
	tmp   string   // the session's temp dir
	path  []string // PATH directories of links (see policy.onPath), read-only
	cwd   string
}

// wrap turns argv (the helper's command line, argv[0] to be filled in by
// the caller) into a bwrap command line that runs it in a fresh mount
// namespace joined to h's user and pid namespaces. extra are the child's
// descriptors from fd 3 (extra[0] is fd 3); wrap appends what it needs
// and returns them.
func (h *holder) wrap(argv []string, extra []*os.File, m nsMounts) ([]string, []*os.File) {
	fd := func(f *os.File) string {
		extra = append(extra, f)
		return strconv.Itoa(2 + len(extra))
	}
	// No --die-with-parent: with --pidns, bwrap sets it in a grandchild
	// whose first parent, an intermediate process, exits meanwhile; when
	// that exit comes after the prctl (under load), the command is killed
	// at start (exit 137, no output). Nothing is lost: everything in the
	// session's pid namespace dies with the holder, which dies with fsmcp.
	// The helper keeps two capabilities of the user namespace, to make
	// the host's device nodes in /dev read-only (lockDevices: bwrap binds
	// them read-write) and then to drop every capability (bwrap, run by
	// root, would otherwise leave the command all of root's).
	args := []string{"bwrap",
		"--userns", fd(h.user), "--pidns", fd(h.pid),
		"--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"}
	args = append(args, systemMounts(m.pol)...)
	for _, d := range m.path {
		args = append(args, "--ro-bind-try", d, d)
	}
	if m.tmp != "" {
		args = append(args, "--bind", m.tmp, m.tmp)
	}
	// Parents before the roots nested in them. A root opened through
	// fsmcp's handle is mounted from that descriptor, so a name swapped
	// for a link meanwhile cannot choose what is mounted.
	order := make([]int, len(m.roots))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(m.roots[order[a]]) < len(m.roots[order[b]]) })
	for _, i := range order {
		if m.dirs != nil {
			args = append(args, "--bind-fd", fd(m.dirs[i]), m.roots[i])
		} else {
			args = append(args, "--bind-try", m.roots[i], m.roots[i])
		}
	}
	args = append(args, "--chdir", m.cwd, "--")
	args = append(args, argv...)
	args[0] = helperPath(2 + len(extra) + 1) // bwrap, appended next
	extra = append(extra, h.bwrap)
	return args, extra
}

// systemMounts are the bwrap arguments for the policy's system trees and
// files (read-only), after a fresh /dev and /proc and an empty private
// /tmp.
// A system directory that is a link into /usr (merged-/usr systems) is
// made the same link.
func systemMounts(pol policy) []string {
	// /tmp first: the home directory's git configuration may lie below it.
	args := []string{"--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"}
	for _, list := range [][]string{pol.RX, pol.RO} {
		for _, p := range list {
			fi, err := os.Lstat(p)
			if err != nil || !filepath.IsAbs(p) {
				continue
			}
			if fi.Mode()&os.ModeSymlink != 0 {
				if target, err := os.Readlink(p); err == nil {
					if real, err := filepath.EvalSymlinks(p); err == nil && within(real, "/usr") && real != "/usr" {
						args = append(args, "--symlink", target, p)
						continue
					}
				}
			}
			args = append(args, "--ro-bind-try", p, p)
		}
	}
	return args
}

// holdNamespace is the helper as holder: it sends its user and pid
// namespaces over stdout, a socket, and waits for its stdin to end
// (Close, or fsmcp's death), then exits, which ends the pid namespace.
func holdNamespace() {
	user, err := unix.Open("/proc/self/ns/user", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		sandboxFail(err)
	}
	pid, err := unix.Open("/proc/self/ns/pid", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		sandboxFail(err)
	}
	if err := unix.Sendmsg(1, []byte{'\n'}, unix.UnixRights(user, pid), nil, unix.MSG_NOSIGNAL); err != nil {
		os.Exit(1) // fsmcp is gone
	}
	unix.Close(user)
	unix.Close(pid)
	unix.Close(1)
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// lockDevices makes read-only every device node bwrap's /dev holds:
// bwrap binds the host's own (null, zero, full, random, urandom, tty)
// read-write, and fsmcp as root owns them, so a command could chmod,
// chown or touch the host's devices. Reading and writing a device is
// device I/O, which a read-only mount still allows. Each is checked to
// be read-only after; one the kernel will not remount that belongs to
// another user than the command's (root's, to anyone but root), whose
// mode and owner the command cannot change anyway, is left as it is.
func lockDevices() error {
	entries, err := os.ReadDir("/dev")
	if err != nil {
		return fmt.Errorf("/dev: %w", err)
	}
	for _, e := range entries {
		// By lstat, not the entry's type: that is the file bwrap made on
		// the tmpfs to mount the node on.
		p := "/dev/" + e.Name()
		var node unix.Stat_t
		if err := unix.Lstat(p, &node); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if t := node.Mode & unix.S_IFMT; t != unix.S_IFCHR && t != unix.S_IFBLK {
			continue
		}
		if err := remountReadOnly(p); err != nil {
			if int(node.Uid) != os.Geteuid() && errors.Is(err, unix.EPERM) {
				// Not the command's to chmod or chown (root's, unmapped
				// here, to any other user): nothing to guard.
				continue
			}
			return fmt.Errorf("%s read-only: %w", p, err)
		}
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil || st.Flags&unix.ST_RDONLY == 0 {
			return fmt.Errorf("%s is still writable (%v)", p, err)
		}
	}
	return nil
}
