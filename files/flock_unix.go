//go:build unix

package files

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/fsmcp/fsmcp/sandbox"
)

// flockWait bounds how long an edit waits for another process's lock on
// the file (another fsmcp's edit takes milliseconds; a program holding
// the lock for longer gets the edit refused rather than hung).
const flockWait = 30 * time.Second

// flockFile takes an exclusive flock on f, polling so that a lock held
// forever cannot block the call forever.
func flockFile(f *os.File) (unlock func(), err error) {
	deadline := time.Now().Add(flockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
		}
		if errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EINVAL) {
			return func() {}, nil // a file system without flock: the in-process lock only
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, errors.New("another program holds a lock on it; try again")
		}
		time.Sleep(time.Millisecond)
	}
}

// fileKey identifies the file behind fi by device and inode.
func fileKey(fi fs.FileInfo, t *sandbox.Path) any {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return [2]uint64{uint64(st.Dev), st.Ino}
	}
	return t.Root.Path + "/" + t.Rel
}
