//go:build unix

package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// The phases of Session.RunTraced, in the order it takes them.

// admit waits for the session's turn (one command at a time) and sets
// the call's roots; release gives the turn back. On an error the Result
// is the one to answer with.
func (s *Session) admit(ctx context.Context, roots []string) (release func(), _ Result, _ error) {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, Result{Cwd: s.Cwd(), Cancelled: true}, ctx.Err()
	case <-s.ctx.Done():
		return nil, Result{}, ErrClosed
	}
	release = func() { <-s.sem }
	if s.ctx.Err() != nil {
		release()
		return nil, Result{}, ErrClosed
	}
	if roots != nil {
		if err := s.SetRoots(roots); err != nil {
			release()
			return nil, Result{Cwd: s.Cwd()}, err
		}
	}
	return release, Result{}, nil
}

// launch is what plan decided: bash's argv behind the helper or the
// namespace that confines it, and the descriptors it inherits.
type launch struct {
	argv  []string
	attr  *syscall.SysProcAttr
	extra []*os.File // from fd 3 on; extra[0] is the marker pipe, set by start
	// stR and stW carry bash's status from the helper that keeps the
	// command, where the session has no pid namespace (keeper_linux.go).
	stR, stW *os.File
	tr       *tracing // nil: not traced
}

// close closes the launch's own ends of its descriptors (the status
// pipe's read end is the collector's).
func (l *launch) close() {
	if l.stW != nil {
		l.stW.Close()
	}
	if l.tr != nil {
		l.tr.theirs.Close()
	}
}

// plan builds the command line and descriptors that run command in cwd:
// the tracing filter where rec is given (or why not, in res.Untraced),
// the helper that installs it and keeps the command, and the sandbox of
// a sandboxed session.
func (s *Session) plan(command, cwd string, roots []string, dirs []*os.File, pol policy, rec Recorder, res *Result) (_ *launch, err error) {
	l := &launch{
		argv:  []string{s.bash, "--noprofile", "--norc", "-c", wrapper, "bash", command},
		attr:  sysProcAttr(),
		extra: []*os.File{nil}, // fd 3, the marker pipe
	}
	defer func() {
		if err != nil {
			l.close()
			if l.stR != nil {
				l.stR.Close()
			}
		}
	}()
	if s.useKeeper() {
		if l.stR, l.stW, err = os.Pipe(); err != nil {
			return nil, err
		}
	}
	if rec != nil {
		if tr, err := newTracing(); err != nil {
			res.Untraced = err.Error()
		} else {
			l.tr = tr
			pol.Trace = 3 + len(l.extra)
			l.extra = append(l.extra, tr.theirs)
		}
	}
	if s.mode != ModeSandboxed && (l.tr != nil || l.stW != nil) {
		// An unconfined shell is traced and kept through the helper too,
		// which then only installs the filter (and sets no_new_privs).
		helper, err := sealedHelper()
		if err != nil {
			return nil, err
		}
		pol = policy{Trace: pol.Trace, NoConfine: true}
		if err := l.behind(helper, &pol); err != nil {
			return nil, err
		}
	}
	if s.mode == ModeSandboxed {
		if dirs != nil {
			pol.RW = []string{s.tmp}
			pol.RWDirs = nil
			for i, d := range dirs {
				pol.RWDirs = append(pol.RWDirs, fdDir{FD: 3 + len(l.extra), Name: roots[i]})
				l.extra = append(l.extra, d)
			}
		}
		if s.ns == nil && s.nsRoot != "" {
			m := &mountPlan{Dir: s.nsRoot, Tmp: s.tmp, Cwd: cwd}
			m.RO = append(append(append(m.RO, pol.RX...), pol.RO...), s.pathBinds...)
			for i, r := range roots {
				fd := -1
				if dirs != nil {
					fd = pol.RWDirs[i].FD
				}
				m.Roots = append(m.Roots, fdDir{FD: fd, Name: r})
			}
			pol.Mount = m
		}
		pol.LockDev = s.ns != nil
		if err := l.behind(s.helper, &pol); err != nil {
			return nil, err
		}
		switch {
		case s.ns != nil:
			l.argv, l.extra = s.ns.wrap(l.argv, l.extra, nsMounts{pol: pol, roots: roots, dirs: dirs, tmp: s.tmp, path: s.pathBinds, cwd: cwd})
		case s.nsRoot != "":
			l.attr = nsSysProcAttr()
		}
	}
	return l, nil
}

// behind puts the command behind helper, which applies pol: the status
// pipe (where the helper keeps the command) and the helper itself join
// the descriptors, and pol is told which of them the command inherits.
func (l *launch) behind(helper *os.File, pol *policy) error {
	if l.stW != nil {
		pol.Keep = 3 + len(l.extra)
		l.extra = append(l.extra, l.stW)
	}
	l.extra = append(l.extra, helper)
	if l.stW != nil {
		pol.KeepFds = 3 + len(l.extra)
	}
	argv, err := sandboxCommand(helperPath(3+len(l.extra)-1), *pol, l.argv)
	if err != nil {
		return err
	}
	l.argv = argv
	return nil
}

// running is a started command: its pipes being drained, and ended
// closed once bash has ended, with code its status.
type running struct {
	cmd     *exec.Cmd
	sid     int // the process session bash (or its keeper) leads
	k       *keeper
	out     *capture
	mk      *lastBytes
	outR    *os.File
	mkR     *os.File
	outDone chan error
	mkDone  chan error
	ended   chan struct{}
	code    int
}

// spawn starts l in cwd, with stdout and stderr on one pipe and the
// marker pipe on fd 3, and begins draining both; rec's supervisor serves
// from here on.
func (s *Session) spawn(l *launch, cwd string, rec Recorder, res *Result) (*running, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	mkR, mkW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := &exec.Cmd{
		Path:        l.argv[0],
		Args:        l.argv,
		Env:         s.env,
		Dir:         cwd,
		Stdout:      outW,
		Stderr:      outW,
		ExtraFiles:  append([]*os.File{mkW}, l.extra[1:]...),
		SysProcAttr: l.attr,
	}
	err = start(cmd)
	outW.Close()
	mkW.Close()
	if l.stW != nil {
		l.stW.Close()
		l.stW = nil
	}
	if err != nil {
		outR.Close()
		mkR.Close()
		if l.stR != nil {
			l.stR.Close()
		}
		return nil, fmt.Errorf("shell: start bash: %w", err)
	}
	if l.tr != nil {
		l.tr.started(rec)
		if l.tr.err != nil {
			res.Untraced = l.tr.err.Error()
		} else {
			s.mu.Lock()
			s.traces = append(s.traces, l.tr)
			s.mu.Unlock()
		}
	}
	r := &running{
		cmd: cmd,
		// Setsid: the session and group id are the pid of the process
		// started, bash or its keeper.
		sid:     cmd.Process.Pid,
		out:     newCapture(s.maxOutput),
		mk:      &lastBytes{limit: markerLimit},
		outR:    outR,
		mkR:     mkR,
		outDone: make(chan error, 1),
		mkDone:  make(chan error, 1),
		ended:   make(chan struct{}),
	}
	go func() { r.outDone <- drain(r.out, outR) }()
	go func() { r.mkDone <- drain(r.mk, mkR) }()
	if l.stR == nil {
		go func() {
			cmd.Wait()
			r.code = exitCode(cmd.ProcessState)
			close(r.ended)
		}()
		return r, nil
	}
	r.k = &keeper{cmd: cmd.Process, done: make(chan struct{})}
	go func() {
		cmd.Wait() // the keeper ends when nothing of the command runs any more
		close(r.k.done)
	}()
	stR := l.stR
	go func() {
		ws, ok := keptStatus(stR)
		stR.Close()
		if ok {
			r.code = exitCodeOf(ws)
		} else { // the keeper ended without a status: it could not start the command
			<-r.k.done
			r.code = exitCode(cmd.ProcessState)
		}
		close(r.ended)
	}()
	return r, nil
}

// wait waits for bash to end, the timeout, the caller's cancellation or
// the session's close; on the last three it kills everything the command
// started (through its keeper, or its process session) and waits for
// bash to end.
func (s *Session) wait(ctx context.Context, r *running, timeout time.Duration, res *Result) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-r.ended:
	case <-timer.C:
		res.TimedOut = true
	case <-ctx.Done():
		res.Cancelled = true
	case <-s.ctx.Done():
		res.Cancelled = true
	}
	if res.TimedOut || res.Cancelled {
		if r.k != nil {
			r.k.stop(keeperLimit) // everything below it, setsid or not
		} else {
			killSession(r.sid)
		}
		<-r.ended
	}
}

// collect reads what bash and its foreground commands wrote (it is in
// the pipes once bash has exited: read on until EOF, or for drainGrace
// when a process bash does not wait for, cmd & or >(cmd), still holds a
// pipe), notes what the command left running, and fills res.
func (s *Session) collect(r *running, rec Recorder, res *Result) {
	deadline := time.Now().Add(drainGrace)
	r.outR.SetReadDeadline(deadline)
	r.mkR.SetReadDeadline(deadline)
	finishDrain(r.out, r.outR, <-r.outDone)
	finishDrain(r.mk, r.mkR, <-r.mkDone)
	if rec != nil {
		rec.Returned() // before the look: a later change is the background's
	}
	s.mu.Lock()
	s.left.update(r.sid)
	if rec != nil {
		res.Writing = openForWriting(s.left[r.sid])
		for _, m := range s.left[r.sid] {
			res.Running = append(res.Running, m.pid)
		}
	}
	if r.k != nil {
		live := s.keepers[:0]
		for _, old := range s.keepers {
			select {
			case <-old.done:
			default:
				live = append(live, old)
			}
		}
		s.keepers = append(live, r.k)
	}
	s.mu.Unlock()

	res.ExitCode = r.code
	text, dropped := r.out.result()
	res.Output = strings.ToValidUTF8(text, "\uFFFD")
	res.Truncated, res.Dropped = dropped > 0, dropped
}

// adopt carries the directory the command ended in (the last record on
// the marker pipe) to the next call, if it lies inside the roots; one
// outside is refused and said.
func (s *Session) adopt(marks []byte, roots []string, res *Result) {
	dir, ok := lastRecord(marks)
	if !ok {
		return
	}
	switch next, err := adoptCwd(dir, roots); {
	case errors.Is(err, errOutside):
		res.RefusedCwd = next
		res.addNotice(outsideMessage(next, roots))
	case err == nil:
		res.Cwd = next
		s.setCwd(next)
	}
}
