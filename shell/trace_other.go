//go:build unix && !linux

package shell

import (
	"errors"
	"os"
)

// Tracing needs Linux's seccomp user notification: elsewhere a command
// runs untraced, and says so.
type tracing struct {
	theirs *os.File
	err    error
}

func newTracing() (*tracing, error) {
	return nil, errors.New("this system cannot report a command's changes before they are made (that needs Linux)")
}

func (t *tracing) started(Recorder) {}
func (t *tracing) close()           {}

func installTrace(int) {}
