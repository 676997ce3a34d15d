package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openUnnamed makes an unnamed file in dir (O_TMPFILE): it has no name
// until linkUnnamed gives it one, so nothing is left if fsmcp dies first.
// File systems without O_TMPFILE answer EOPNOTSUPP or EISDIR.
func openUnnamed(dir *os.File, perm fs.FileMode) (*os.File, error) {
	fd, err := unix.Openat(int(dir.Fd()), ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "(unnamed)"), nil
}

// linkUnnamed gives the unnamed file f the name name in dir. linkat with
// AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the /proc/self/fd link works
// for everyone where /proc is mounted.
func linkUnnamed(f, dir *os.File, name string) error {
	err := unix.Linkat(int(f.Fd()), "", int(dir.Fd()), name, unix.AT_EMPTY_PATH)
	if err == unix.ENOENT || err == unix.EPERM {
		err = unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", f.Fd()), int(dir.Fd()), name, unix.AT_SYMLINK_FOLLOW)
	}
	return err
}

// futimes sets f's times to the nanosecond (futimens: utimensat on the
// descriptor with no path).
func futimes(f *os.File, atime, mtime time.Time) error {
	ts := [2]unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, f.Fd(), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
