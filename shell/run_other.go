//go:build !linux

package shell

import (
	"errors"
	"os"
	"os/exec"
)

// Traced is a program run with its changes told first; it needs Linux.
type Traced struct{}

// UntracedError says the program runs, but untraced.
type UntracedError struct{ Err error }

func (e *UntracedError) Error() string { return "the command runs untraced: " + e.Err.Error() }
func (e *UntracedError) Unwrap() error { return e.Err }

var errTraceOS = errors.New("reporting a command's changes before they are made needs Linux")

// StartTraced fails here: run the command untraced.
func StartTraced(*exec.Cmd, Recorder) (*Traced, error) { return nil, errTraceOS }

func (t *Traced) Wait() error                   { return errTraceOS }
func (t *Traced) Left() bool                    { return false }
func (t *Traced) Detach() (*os.File, error)     { return nil, errTraceOS }
func (t *Traced) Close()                        {}
func Supervise(listener *os.File, rec Recorder) { listener.Close() }
