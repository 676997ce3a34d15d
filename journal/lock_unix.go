//go:build unix

package journal

import (
	"os"
	"syscall"
)

// flock takes the exclusive lock on f, waiting for it; another fsmcp
// sharing the journal (two servers on one root) holds it while it appends
// or prunes.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
