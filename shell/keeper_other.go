//go:build unix && !linux

package shell

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Without PR_SET_CHILD_SUBREAPER there is no keeper: a process that calls
// setsid leaves the tracking (see keeper_linux.go).
func (s *Session) useKeeper() bool { return false }

func keep(policy) { sandboxFail(errors.New("no keeper on this system")) }

type keeper struct {
	cmd  *os.Process
	done chan struct{}
}

func (k *keeper) stop(time.Duration) {}

const keeperLimit = 10 * time.Second

func keptStatus(*os.File) (syscall.WaitStatus, bool) { return 0, false }

func exitCodeOf(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
