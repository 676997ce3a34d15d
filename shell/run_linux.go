package shell

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Traced is a program run with the journal's filter and nothing else:
// every call of it, and of everything it starts, that changes files is
// told to a Recorder before it is made (fsmcp run). It is not confined.
type Traced struct {
	cmd      *exec.Cmd
	tr       *tracing
	listener int           // a second descriptor of the filter's listener
	ended    chan struct{} // closed when the supervisor has returned
	once     sync.Once
}

// StartTraced starts cmd (cmd.Path absolute, its Args as the program is
// to see them; its descriptors, directory and environment as the caller
// set them) through fsmcp's helper, which installs the filter and execs
// it. rec is told each change; a Finisher is told when the last process
// holding the filter has ended, or when Detach hands them on.
func StartTraced(cmd *exec.Cmd, rec Recorder) (*Traced, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	tr, err := newTracing()
	if err != nil {
		return nil, err
	}
	defer tr.theirs.Close()
	fd := 3 + len(cmd.ExtraFiles)
	argv, err := sandboxCommand(self, policy{Trace: fd, NoConfine: true, Exec: cmd.Path}, cmd.Args)
	if err != nil {
		tr.mine.Close()
		return nil, err
	}
	cmd.Path, cmd.Args = self, argv
	cmd.ExtraFiles = append(cmd.ExtraFiles, tr.theirs)
	if err := cmd.Start(); err != nil {
		tr.mine.Close()
		return nil, err
	}
	tr.theirs.Close()
	l, err := receiveListener(tr.mine, helperWait)
	tr.mine.Close()
	if err != nil {
		return &Traced{cmd: cmd, listener: -1}, &UntracedError{err}
	}
	keep, err := unix.FcntlInt(uintptr(l), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		keep = -1
	}
	t := &Traced{cmd: cmd, tr: tr, listener: keep, ended: make(chan struct{})}
	go func() {
		defer close(t.ended)
		superviseWith(l, rec, tr.stop, true)
	}()
	return t, nil
}

// helperWait bounds how long the helper may take to install the filter.
const helperWait = 10 * time.Second

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
	t.tr.close()
	<-t.ended
	f := os.NewFile(uintptr(t.listener), "listener")
	t.listener = -1
	return f, nil
}

// Close stops supervising (the processes left, if any, are Detach's).
func (t *Traced) Close() {
	t.once.Do(func() {
		if t.tr != nil {
			t.tr.close()
			<-t.ended
		}
		if t.listener >= 0 {
			unix.Close(t.listener)
			t.listener = -1
		}
	})
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
