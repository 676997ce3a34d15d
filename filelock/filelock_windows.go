package filelock

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockLow and lockHigh place the one locked byte: far past any file's end,
// because Windows locks are mandatory and a lock on the content would
// make other programs' reads fail while a change is under way.
const lockLow, lockHigh = 0xFFFFFFFE, 0x7FFFFFFF

func lockRange(f *os.File, flags uint32) error {
	ol := windows.Overlapped{Offset: lockLow, OffsetHigh: lockHigh}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &ol)
}

// TryLock takes the exclusive lock on f if it is free.
func TryLock(f *os.File) (bool, error) {
	err := lockRange(f, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY)
	if err == windows.ERROR_LOCK_VIOLATION || err == windows.ERROR_IO_PENDING {
		return false, nil
	}
	return err == nil, err
}

// Lock waits for the exclusive lock on f (the handle is synchronous, so
// LockFileEx returns once it is had).
func Lock(f *os.File) error { return lockRange(f, windows.LOCKFILE_EXCLUSIVE_LOCK) }

// Unlock releases the lock.
func Unlock(f *os.File) {
	ol := windows.Overlapped{Offset: lockLow, OffsetHigh: lockHigh}
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
