package shell

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// Traced is a program run with the journal's filter and nothing else:
// every call of it, and of everything it starts, that changes files is
// told to a Recorder before it is made (fsmcp run). It is not confined.
type Traced struct {
	cmd      *exec.Cmd
	stop     chan struct{}
	listener int           // a second descriptor of the filter's listener
	ended    chan struct{} // closed when the supervisor has returned
	once     sync.Once
}

// StartTraced starts cmd (its path, arguments, descriptors, directory
// and environment as the caller set them) with the filter: installed on
// a thread of this process kept for it, which starts cmd and ends, so
// cmd inherits the filter and nothing else of this process has it (no
// helper is started first: a program starts one process later). rec is
// told each change; a Finisher is told when the last process holding
// the filter has ended, or when Detach hands them on. Where the filter
// cannot be installed the program runs untraced, and the error is an
// UntracedError.
func StartTraced(cmd *exec.Cmd, rec Recorder) (*Traced, error) {
	t := &Traced{cmd: cmd, stop: make(chan struct{}), listener: -1, ended: make(chan struct{})}
	type result struct {
		l          int
		filter, st error
	}
	done := make(chan result, 1)
	supervising := make(chan int)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine, its filter with it
		l, err := installFilter()
		if err != nil {
			runtime.UnlockOSThread()
			done <- result{-1, err, cmd.Start()}
			return
		}
		// The supervisor runs first: a call this thread made before the
		// fork would wait for it.
		supervising <- l
		done <- result{l, nil, cmd.Start()}
	}()
	select {
	case l := <-supervising:
		keep, err := unix.FcntlInt(uintptr(l), unix.F_DUPFD_CLOEXEC, 0)
		if err == nil {
			t.listener = keep
		}
		go func() {
			defer close(t.ended)
			superviseWith(l, rec, t.stop, true)
		}()
	case r := <-done:
		close(t.ended)
		if r.st != nil {
			return nil, r.st
		}
		return t, &UntracedError{r.filter}
	}
	r := <-done
	if r.st != nil {
		t.Close()
		return nil, r.st
	}
	return t, nil
}

// UntracedError says the program runs, but untraced: what it changes is
// not told (the kernel cannot trace it).
type UntracedError struct{ Err error }

func (e *UntracedError) Error() string { return "the command runs untraced: " + e.Err.Error() }
func (e *UntracedError) Unwrap() error { return e.Err }

// Wait waits for the program (not for what it left running).
func (t *Traced) Wait() error { return t.cmd.Wait() }

// Left reports whether processes the program started still hold the
// filter (the program itself has been waited for).
func (t *Traced) Left() bool {
	if t.listener < 0 {
		return false
	}
	fds := []unix.PollFd{{Fd: int32(t.listener)}}
	n, err := unix.Poll(fds, 0)
	return err == nil && (n == 0 || fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) == 0)
}

// Detach stops supervising and returns the filter's listener, for
// another process to go on (Supervise): their calls wait meanwhile.
func (t *Traced) Detach() (*os.File, error) {
	if t.listener < 0 {
		return nil, errors.New("nothing to hand on")
	}
	t.once.Do(func() { close(t.stop) })
	<-t.ended
	f := os.NewFile(uintptr(t.listener), "listener")
	t.listener = -1
	return f, nil
}

// Close stops supervising (the processes left, if any, are Detach's).
func (t *Traced) Close() {
	t.once.Do(func() { close(t.stop) })
	<-t.ended
	if t.listener >= 0 {
		unix.Close(t.listener)
		t.listener = -1
	}
}

// Supervise serves a listener another process handed on (Detach) until
// no process holds its filter: each change is told to rec first.
func Supervise(listener *os.File, rec Recorder) {
	fd, err := unix.FcntlInt(listener.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	listener.Close()
	if err != nil {
		return
	}
	supervise(fd, rec, make(chan struct{}))
}
