//go:build !linux

package shell

import (
	"errors"
	"os"
	"os/exec"
)

// Traced is a program run with its changes told first: that needs
// Linux, so here it only runs.
type Traced struct{ cmd *exec.Cmd }

// UntracedError says the program runs, but untraced.
type UntracedError struct{ Err error }

func (e *UntracedError) Error() string { return "the command runs untraced: " + e.Err.Error() }
func (e *UntracedError) Unwrap() error { return e.Err }

var errTraceOS = errors.New("reporting a command's changes before they are made needs Linux")

// StartTraced starts cmd untraced, and says so (an UntracedError).
func StartTraced(cmd *exec.Cmd, _ Recorder) (*Traced, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Traced{cmd}, &UntracedError{errTraceOS}
}

func (t *Traced) Wait() error                 { return t.cmd.Wait() }
func (t *Traced) Left() bool                  { return false }
func (t *Traced) Detach() (*os.File, error)   { return nil, errTraceOS }
func (t *Traced) Close()                      {}
func Supervise(listener *os.File, _ Recorder) { listener.Close() }
