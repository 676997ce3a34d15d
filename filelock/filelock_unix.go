//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// TryLock takes an exclusive lock on f if it is free. A file system
// without flock counts as locked (an in-process lock must then hold).
func TryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil, unsupported(err):
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case !errors.Is(err, syscall.EINTR):
			return false, err
		}
	}
}

// Lock waits for an exclusive lock on f.
func Lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err == nil || unsupported(err) {
			return nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Unlock releases the lock (closing f does too).
func Unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

func unsupported(err error) bool {
	return errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EINVAL)
}
