//go:build unix

package files

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/fsmcp/fsmcp/sandbox"
)

// tryLockFD takes an exclusive flock on f if it is free. A file system
// without flock counts as locked (the in-process lock still holds).
func tryLockFD(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil, noFlock(err):
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case !errors.Is(err, syscall.EINTR):
			return false, err
		}
	}
}

// lockFD waits for an exclusive flock on f.
func lockFD(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err == nil || noFlock(err) {
			return nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func unlockFD(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

func noFlock(err error) bool {
	return errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EINVAL)
}

// fileKey identifies the file behind fi by device and inode.
func fileKey(_ *os.File, fi fs.FileInfo, t *sandbox.Path) any {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return [2]uint64{uint64(st.Dev), st.Ino}
	}
	return t.Root.Path + "/" + t.Rel
}
