package confine

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// trace runs r on a thread of its own (restricted by p where Landlock
// is), as the tracer of every process the run forks: ptrace binds a
// tracee to the thread that traces it, and waiting with __WNOTHREAD on
// the run's process group sees only the run's processes, never another
// child of fsmcp.
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
	killAll := func() { syscall.Kill(-pid, syscall.SIGKILL) }
	if r.Timeout > 0 {
		timer := time.AfterFunc(r.Timeout, killAll)
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
			killAll()
		}
	}
	started := false
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-pid, &ws, syscall.WALL|syscall.WNOTHREAD, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break // ECHILD: every process of the run has ended
		}
		switch {
		case ws.Exited(), ws.Signaled():
			if wpid == pid {
				if ws.Exited() {
					t.Exit = ws.ExitStatus()
				}
			}
			continue
		case !ws.Stopped():
			continue
		}
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
				killAll()
				reap(pid)
				return t, fmt.Errorf("%w: %v", ErrNoTrace, err)
			}
			seen(pid)
		case sig == syscall.SIGTRAP && ws.TrapCause() == unix.PTRACE_EVENT_EXEC:
			seen(wpid)
		case sig == syscall.SIGTRAP && ws.TrapCause() > 0:
			// A fork, vfork or clone event; the child starts traced,
			// with a SIGSTOP of its own.
		case sig == syscall.SIGSTOP || sig == syscall.SIGTRAP:
		default:
			deliver = int(sig)
		}
		if err := syscall.PtraceCont(wpid, deliver); err != nil && !errors.Is(err, syscall.ESRCH) {
			killAll()
		}
	}
	if vetoed {
		return t, ErrVetoed
	}
	return t, nil
}

// reap waits for every process of the run pid leads to end.
func reap(pid int) {
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(-pid, &ws, syscall.WALL|syscall.WNOTHREAD, nil)
		if err != nil && err != syscall.EINTR {
			return
		}
	}
}
