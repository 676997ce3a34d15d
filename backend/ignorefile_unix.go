//go:build unix

package backend

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// OpenFlags are the flags every walked file is opened with: a symlink in
// the last element is refused (ELOOP), and opening a FIFO or device does
// not wait for a peer.
const OpenFlags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// readRegular reads dir/name (relative to dirfd when dirfd >= 0) if it is
// a regular file of at most limit bytes; tooBig reports a larger one.
func readRegular(dirfd int, dir, name string, limit int64) (data []byte, tooBig bool) {
	var fd int
	var err error
	for {
		if dirfd >= 0 {
			fd, err = unix.Openat(dirfd, name, OpenFlags, 0)
		} else {
			fd, err = unix.Open(dir+"/"+name, OpenFlags, 0)
		}
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, false
	}
	if st.Size > limit {
		return nil, true
	}
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false
	}
	if int64(len(data)) > limit {
		return nil, true // grew since the fstat
	}
	return data, false
}

// openRegular opens path for reading if it is a regular file, without
// following a symlink in its last element and without blocking.
func openRegular(path string) (*os.File, error) {
	fd, err := unix.Open(path, OpenFlags, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: unix.EINVAL}
	}
	return os.NewFile(uintptr(fd), path), nil
}
