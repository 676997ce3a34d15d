package shell

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A process that calls setsid leaves the process session its command
// started in, and with it the tracking by session id (proc.go); in the
// session's pid namespace (bwrap) it still dies with the namespace, but
// where there is none (--shell on, fsmcp's own namespaces, Landlock
// alone) it used to be re-parented to init and run on after the MCP
// session ended. So there every command runs under a keeper: the helper,
// started by fsmcp, makes itself a child subreaper (PR_SET_CHILD_SUBREAPER)
// and runs the command as its child. A process cannot leave its ancestry:
// whatever the command starts, setsid or double fork included, is re-
// parented to the keeper when its parent dies, never to init. The keeper
// tells fsmcp bash's exit status on a pipe as soon as bash ends (the call
// returns then, as before), reaps what is left, and exits when nothing of
// the command runs any more. Told to end (SIGTERM from fsmcp at a
// timeout, a cancellation or the session's end, or fsmcp dying: its
// parent-death signal), it kills every process below it, reaps them, and
// exits. Under Landlock ABI 6 and later the sandboxed command cannot
// signal its keeper (it lies outside its domain); with an unconfined
// shell (--shell on), or an older Landlock, a command that kills its
// keeper first can still leave.

// useKeeper reports whether the session's commands run under a keeper:
// everywhere on Linux but in the session's own pid namespace, which
// already holds them.
func (s *Session) useKeeper() bool { return s.ns == nil }

// keep runs the command of p as the keeper's child, then keeps what it
// leaves (see above); it never returns. p.Keep is the descriptor of the
// status pipe to fsmcp, p.KeepFds how many descriptors (0 to KeepFds-1)
// the command inherits, the status pipe aside.
func keep(p policy) {
	runtime.LockOSThread() // the child's parent-death signal is this thread's
	parent := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		sandboxFail(fmt.Errorf("keeper: subreaper: %w", err))
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0); err != nil {
		sandboxFail(fmt.Errorf("keeper: parent-death signal: %w", err))
	}
	status := p.Keep
	child := p
	child.Keep, child.KeepFds = 0, 0
	js, err := json.Marshal(child)
	if err != nil {
		sandboxFail(err)
	}
	argv := append([]string{os.Args[0], sandboxArg, string(js)}, os.Args[3:]...)
	files := make([]uintptr, p.KeepFds)
	for i := range files {
		files[i] = uintptr(i)
	}
	files[status] = ^uintptr(0) // closed in the child
	end := make(chan os.Signal, 1)
	signal.Notify(end, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{Env: os.Environ(), Files: files,
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		sandboxFail(fmt.Errorf("keeper: start the command: %w", err))
	}
	// The keeper holds nothing of the command's: its output and marker
	// pipes, the trace socket, the roots, the helper.
	if null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
		unix.Dup2(null, 1)
		unix.Dup2(null, 2)
		unix.Close(null)
	}
	for fd := 3; fd < p.KeepFds; fd++ {
		if fd != status {
			unix.Close(fd)
		}
	}
	go func() {
		for range end {
			killBelow(os.Getpid())
		}
	}()
	if os.Getppid() != parent { // fsmcp died before the parent-death signal was set
		end <- syscall.SIGTERM
	}
	for reported := false; ; {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			os.Exit(0) // ECHILD: nothing of the command runs any more
		}
		if wpid == pid && !reported {
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], uint32(ws))
			unix.Write(status, b[:])
			unix.Close(status)
			reported = true
		}
	}
}

// killBelow kills every process below pid, in rounds until none is left
// (a process forked during a round is met in the next); the keeper reaps
// them as they die.
func killBelow(pid int) {
	for range 1000 {
		below := descendants(pid)
		if len(below) == 0 {
			return
		}
		for _, d := range below {
			syscall.Kill(d, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// descendants lists the live processes below pid, from /proc.
func descendants(pid int) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	children := map[int][]int{}
	for _, name := range names {
		p, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(p); ok {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	for queue := children[pid]; len(queue) > 0; {
		p := queue[0]
		queue = queue[1:]
		out = append(out, p)
		queue = append(queue, children[p]...)
	}
	return out
}

// parentOf is a live (non-zombie) process's parent, from /proc/pid/stat.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 || string(f[0]) == "Z" || string(f[0]) == "X" {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}

// keeper is a command's keeper as fsmcp sees it: the process, and done,
// closed once fsmcp has reaped it (nothing of the command runs any more).
type keeper struct {
	cmd  *os.Process
	done chan struct{}
}

// stop tells the keeper to kill everything of its command and waits for
// it to exit (within limit; then it is killed, and what it kept escapes).
func (k *keeper) stop(limit time.Duration) {
	select {
	case <-k.done:
		return
	default:
	}
	k.cmd.Signal(syscall.SIGTERM)
	select {
	case <-k.done:
	case <-time.After(limit):
		killSession(k.cmd.Pid) // it is not reaped yet: the number is still its session's
		<-k.done
	}
}

// keeperLimit bounds how long a keeper may take to end its command.
const keeperLimit = 10 * time.Second

// keptStatus reads bash's wait status from the keeper's status pipe; ok
// is false when the keeper ended (or failed to start the command) without
// sending it.
func keptStatus(r *os.File) (ws syscall.WaitStatus, ok bool) {
	var b [4]byte
	n, err := r.Read(b[:])
	for n < 4 && err == nil {
		var m int
		m, err = r.Read(b[n:])
		n += m
	}
	if n < 4 {
		return 0, false
	}
	return syscall.WaitStatus(binary.LittleEndian.Uint32(b[:])), true
}

// exitCodeOf is the shell convention for a wait status: the exit status,
// or 128+signal.
func exitCodeOf(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
