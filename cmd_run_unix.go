//go:build unix

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/journal/shellrec"
	"github.com/fsmcp/fsmcp/shell"
)

// tracedEnv marks the processes of a command fsmcp run traces: a fsmcp
// run inside runs its command as it is (the outer one journals it; a
// second filter with a listener cannot be installed).
const tracedEnv = "FSMCP_TRACED"

// runCommand serves "fsmcp run".
func runCommand(args []string, stderr io.Writer) int {
	o, err := parseRun(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stderr, runUsage)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp run: %v\n%s", err, runUsage)
		return exitUsage
	}
	if o.bgFd > 0 {
		return runBackground(o)
	}
	path, err := exec.LookPath(o.argv[0])
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp run: %s: command not found\n", escape.Name(o.argv[0]))
		return 127
	}
	cmd := &exec.Cmd{Path: path, Args: o.argv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Env: os.Environ()}
	if os.Getenv(tracedEnv) != "" {
		return runPlain(cmd, stderr, "")
	}
	j, err := openRunJournal(o)
	if err != nil {
		return runPlain(cmd, stderr, err.Error())
	}
	defer j.close()
	cmd.Env = append(cmd.Env, tracedEnv+"=1")
	actor := journal.Actor{Tool: o.label, Session: o.session, Client: o.host, Command: o.text}
	step := j.set.Begin(actor, j.sb.Roots())
	ctx := journal.With(context.Background(), step)
	rec := shellrec.New(ctx, j.sb, j.sb, o.text, actor)
	started, stop := forwardSignals()
	t, err := shell.StartTraced(cmd, rec)
	var untraced *shell.UntracedError
	switch {
	case errors.As(err, &untraced):
		fmt.Fprintf(stderr, "fsmcp run: not journaled: %v\n", untraced.Err)
	case err != nil:
		stop()
		fmt.Fprintf(stderr, "fsmcp run: %s: %v\n", escape.Name(o.argv[0]), err)
		return 126
	}
	started(cmd.Process)
	werr := cmd.Wait()
	stop()
	rec.Returned()
	if t != nil && t.Left() {
		// What the command left running goes on changing files: its
		// supervisor goes on in a process of its own, journaling those
		// changes as fs_bash does, so this one returns now.
		if err := handOn(t, o); err != nil {
			fmt.Fprintf(stderr, "fsmcp run: what the command left running is not journaled: %v\n", err)
		}
	} else if t != nil {
		t.Close()
	}
	rec.Finished()
	for _, n := range step.End(ctx) {
		fmt.Fprintf(stderr, "fsmcp run: %s\n", n)
	}
	return exitStatus(cmd, werr)
}

// runPlain runs cmd untraced, saying why first (why "" says nothing:
// an outer fsmcp run journals it).
func runPlain(cmd *exec.Cmd, stderr io.Writer, why string) int {
	if why != "" {
		fmt.Fprintf(stderr, "fsmcp run: not journaled: %s\n", why)
	}
	started, stop := forwardSignals()
	err := cmd.Start()
	if err == nil {
		started(cmd.Process)
		err = cmd.Wait()
	} else {
		stop()
		fmt.Fprintf(stderr, "fsmcp run: %s: %v\n", escape.Name(cmd.Args[0]), err)
		return 126
	}
	stop()
	return exitStatus(cmd, err)
}

// forwardSignals passes the signals fsmcp run gets on to the command;
// those a terminal sends its foreground group (Ctrl-C, Ctrl-\) reach the
// command by themselves and are only kept from ending fsmcp run first.
// Signals that come while the command is being started wait for it
// (started hands its process over), so a SIGTERM sent then still ends
// it. It returns started and the function that stops forwarding.
func forwardSignals() (started func(*os.Process), stop func()) {
	ch := make(chan os.Signal, 8)
	sigs := []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}
	signal.Notify(ch, sigs...)
	fromTerminal := foreground()
	proc := make(chan *os.Process, 1)
	done := make(chan struct{})
	go func() {
		var p *os.Process
		select {
		case p = <-proc:
		case <-done:
			return
		}
		for {
			select {
			case s := <-ch:
				if fromTerminal && (s == syscall.SIGINT || s == syscall.SIGQUIT) {
					continue
				}
				p.Signal(s)
			case <-done:
				return
			}
		}
	}()
	started = func(p *os.Process) { proc <- p }
	stop = func() {
		signal.Stop(ch)
		close(done)
	}
	return started, stop
}

// exitStatus is the status fsmcp run ends with: the command's, or, for
// a command a signal ended, that signal again (so its parent sees it so),
// else 128 and its number, as a shell says it.
func exitStatus(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState == nil {
		if err != nil {
			return 126
		}
		return exitOK
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig := ws.Signal()
		signal.Reset(sig)
		syscall.Kill(os.Getpid(), sig)
		// The signal ends this process meanwhile, but on whichever thread
		// takes it (Go's handler, no longer notifying, raises it again
		// with the default action): returning at once could exit with
		// 128+N first, and the parent would see a status, not the signal.
		time.Sleep(time.Second)
		return 128 + int(sig)
	}
	return cmd.ProcessState.ExitCode()
}

// handOn gives the supervisor of what the command left running to a
// process of its own (fsmcp run --background-fd), detached from the
// terminal and the host, which journals their changes until the last
// of them ends.
func handOn(t *shell.Traced, o *runOpts) error {
	l, err := t.Detach()
	if err != nil {
		return err
	}
	defer l.Close()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	args := []string{"run", "--background-fd", "3", "--dir", o.dir, "--label", o.label, "--host", o.host, "--session", o.session, "--text", o.text, "--state-home", o.stateHome}
	bg := &exec.Cmd{Path: self, Args: append([]string{self}, args...), Stdin: null, Stdout: null, Stderr: null,
		ExtraFiles: []*os.File{l}, Env: os.Environ(), SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := bg.Start(); err != nil {
		return err
	}
	return bg.Process.Release()
}

// runBackground is the supervisor fsmcp run handed on: each change what
// the command left running makes is journaled, in steps of their own,
// until the last of those processes ends.
func runBackground(o *runOpts) int {
	l := os.NewFile(uintptr(o.bgFd), "listener")
	j, err := openRunJournal(o)
	if err != nil {
		shell.Supervise(l, nopRecorder{}) // they must go on all the same
		return exitError
	}
	defer j.close()
	actor := journal.Actor{Tool: o.label, Session: o.session, Client: o.host, Command: o.text}
	ctx := journal.With(context.Background(), j.set.Begin(actor, j.sb.Roots()))
	rec := shellrec.New(ctx, j.sb, j.sb, o.text, actor)
	rec.Returned() // every change from here on is the background's
	shell.Supervise(l, rec)
	rec.Finished()
	return exitOK
}

// nopRecorder lets every call go on, journaling nothing.
type nopRecorder struct{}

func (nopRecorder) Before(shell.Event) {}
func (nopRecorder) Returned()          {}

// foreground reports whether fsmcp run is in its terminal's foreground
// process group: the signals the terminal sends reach the command too.
func foreground() bool {
	pg, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	return err == nil && pg == unix.Getpgrp()
}

// execShell replaces fsmcp with sh -c script: what a host runs through
// its prefix that is not its shell tool's command goes on as it is.
func execShell(sh, script string, stderr io.Writer) int {
	err := syscall.Exec(sh, []string{sh, "-c", script}, os.Environ())
	fmt.Fprintf(stderr, "fsmcp: %s: %v\n", sh, err)
	return 127
}
