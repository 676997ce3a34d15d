package confine

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// trace runs r on a thread of its own (restricted by p where Landlock
// is), as the tracer of every process the run forks: ptrace binds a
// tracee to the thread that traces it, and this thread runs nothing else,
// so waiting with __WNOTHREAD sees only the run's processes (whatever
// group or session they move to), never another child of fsmcp.
func trace(r Run, p Policy, files []*os.File) (Traced, error) {
	type result struct {
		t   Traced
		err error
	}
	done := make(chan result, 1)
	go func() {
		// Never unlocked: the thread ends with the goroutine, and with
		// it (PTRACE_O_EXITKILL) any process of the run still left.
		runtime.LockOSThread()
		if available() {
			if err := restrictThread(p, r.Path); err != nil {
				done <- result{err: fmt.Errorf("confine: %w; the program was not run", err)}
				return
			}
		}
		t, err := traceOn(r, files)
		done <- result{t, err}
	}()
	res := <-done
	return res.t, res.err
}

// traceOn forks and follows r from the calling thread.
//
// Every process of the run is followed, whatever process group or
// session it moves to: the wait takes any child or tracee of this thread
// (__WNOTHREAD: only this thread's, which runs nothing else), so a
// process that calls setsid is still seen at each stop and let go on.
// Waiting on the first process's group alone left such a process stopped
// at its exec for good, holding the run's output open, and the start
// waiting on it. The timeout and a veto end every process of the run
// (procs), not only its first group.
func traceOn(r Run, files []*os.File) (Traced, error) {
	fds := make([]uintptr, len(files))
	for i, f := range files {
		fds[i] = f.Fd()
	}
	pid, err := syscall.ForkExec(r.Path, r.Args, &syscall.ProcAttr{
		Dir: r.Dir, Env: r.Env, Files: fds,
		Sys: &syscall.SysProcAttr{Ptrace: true, Setpgid: true},
	})
	if err != nil {
		return Traced{}, err
	}
	ps := newProcs()
	defer ps.close()
	ps.add(pid)
	var timedOut atomic.Bool
	if r.Timeout > 0 {
		timer := time.AfterFunc(r.Timeout, func() {
			timedOut.Store(true)
			ps.end()
		})
		defer timer.Stop()
	}
	t := Traced{Exit: -1}
	var vetoed bool
	seen := func(tid int) {
		exe, err := os.Readlink("/proc/" + strconv.Itoa(tid) + "/exe")
		if err != nil {
			exe = "?"
		}
		t.Images = append(t.Images, exe)
		if r.Vet != nil && !vetoed && (err != nil || !r.Vet(exe)) {
			vetoed = true
			ps.end()
		}
	}
	started := false
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, syscall.WALL|syscall.WNOTHREAD, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break // ECHILD: every process of the run has ended
		}
		switch {
		case ws.Exited(), ws.Signaled():
			ps.gone(wpid)
			if wpid == pid {
				if ws.Exited() {
					t.Exit = ws.ExitStatus()
				}
			}
			continue
		case !ws.Stopped():
			continue
		}
		ps.add(wpid) // a new process's first stop may come before its parent's event
		sig := ws.StopSignal()
		deliver := 0
		switch {
		case wpid == pid && !started:
			// The stop after the first exec (PTRACE_TRACEME).
			started = true
			// Threads too: a program that hands over by an exec from a
			// thread other than its first (a Go program's goroutine may
			// run on any) would exec unseen, and its image be missed.
			opts := unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK | unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_EXITKILL
			if err := syscall.PtraceSetOptions(pid, opts); err != nil {
				ps.end()
				reap(ps)
				return t, fmt.Errorf("%w: %v", ErrNoTrace, err)
			}
			seen(pid)
		case sig == syscall.SIGTRAP && ws.TrapCause() == unix.PTRACE_EVENT_EXEC:
			seen(wpid)
		case sig == syscall.SIGTRAP && ws.TrapCause() > 0:
			// A fork, vfork or clone event; the child starts traced,
			// with a SIGSTOP of its own.
			if child, err := syscall.PtraceGetEventMsg(wpid); err == nil {
				ps.add(int(child))
			}
		case sig == syscall.SIGSTOP || sig == syscall.SIGTRAP:
		default:
			deliver = int(sig)
		}
		if err := syscall.PtraceCont(wpid, deliver); err != nil && !errors.Is(err, syscall.ESRCH) {
			ps.end()
		}
	}
	switch {
	case vetoed:
		return t, ErrVetoed
	case timedOut.Load():
		return t, fmt.Errorf("%w (%v)", ErrTimedOut, r.Timeout)
	}
	return t, nil
}

// reap waits for every process of the run to end.
func reap(ps *procs) {
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, syscall.WALL|syscall.WNOTHREAD, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return
		}
		if ws.Exited() || ws.Signaled() {
			ps.gone(wpid)
		}
	}
}

// procs are the live processes of one traced run, each held by a pidfd
// where the kernel has them (Linux 5.3), so that a kill from the timer
// never reaches a pid that was reaped meanwhile and reused. Once the run
// is ending, every process is killed, and each new one as it is seen.
type procs struct {
	mu     sync.Mutex
	live   map[int]int // pid -> its pidfd, -1 where there is none
	ending bool
}

func newProcs() *procs { return &procs{live: map[int]int{}} }

// add holds pid, a process of the run (a thread of one is held by its
// process: pidfd_open refuses it).
func (p *procs) add(pid int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.live[pid]; ok {
		return
	}
	fd, err := unix.PidfdOpen(pid, 0)
	switch {
	case err == unix.EINVAL:
		return // a thread, not a process
	case err == unix.ESRCH:
		return // reaped already
	case err != nil:
		fd = -1 // no pidfds here: the pid is what there is
	}
	p.live[pid] = fd
	if p.ending {
		kill(pid, fd)
	}
}

// gone forgets pid, which was reaped.
func (p *procs) gone(pid int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if fd, ok := p.live[pid]; ok {
		if fd >= 0 {
			unix.Close(fd)
		}
		delete(p.live, pid)
	}
}

// end kills every process of the run, and from now on each one seen.
func (p *procs) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ending = true
	for pid, fd := range p.live {
		kill(pid, fd)
	}
}

// close releases the pidfds still held.
func (p *procs) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for pid, fd := range p.live {
		if fd >= 0 {
			unix.Close(fd)
		}
		delete(p.live, pid)
	}
}

func kill(pid, pidfd int) {
	if pidfd < 0 || unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0) == unix.ENOSYS {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
