//go:build unix

package ignore

import (
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// OpenFlags are the flags every walked file is opened with: a symlink in
// the last element is refused (ELOOP), and opening a FIFO or device does
// not wait for a peer.
const OpenFlags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// OpenRegularAt opens name in dirfd (unix.AT_FDCWD: name is a path) for
// reading if it is a regular file (not a symlink, FIFO or device),
// without blocking, and returns its size.
func OpenRegularAt(dirfd int, name string) (fd int, size int64, err error) {
	for {
		fd, err = unix.Openat(dirfd, name, OpenFlags, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return -1, 0, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, 0, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, 0, unix.EINVAL
	}
	return fd, st.Size, nil
}

// readRegular reads dir/name (relative to dirfd when dirfd >= 0) if it is
// a regular file of at most limit bytes; tooBig reports a larger one.
func readRegular(dirfd int, dir, name string, limit int64) (data []byte, tooBig bool) {
	if dirfd < 0 {
		dirfd, name = unix.AT_FDCWD, dir+"/"+name
	}
	fd, size, err := OpenRegularAt(dirfd, name)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	if size > limit {
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

// OpenRegularBeneath opens path, inside root (both absolute, cleaned), for
// reading if it is a regular file, without blocking: every directory below
// root is opened relative to its parent's descriptor without following a
// symlink, so a parent swapped for a link out of the root is refused,
// never followed. root itself is opened by
// name unless rootDir, its open directory, is given; a path outside root
// goes from "/" the same way.
func OpenRegularBeneath(root string, rootDir *os.File, path string) (*os.File, error) {
	rel, ok := strings.CutPrefix(path, strings.TrimSuffix(root, "/"))
	if !ok || rel == "" || rel[0] != '/' {
		root, rel = "/", path
	}
	const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NONBLOCK | unix.O_CLOEXEC
	var fd int
	var err error
	if rootDir != nil && root != "/" {
		fd, err = unix.Openat(int(rootDir.Fd()), ".", dirFlags, 0)
	} else {
		fd, err = unix.Open(root, dirFlags, 0)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	els := strings.Split(strings.Trim(rel, "/"), "/")
	for _, el := range els[:len(els)-1] {
		if el == "" || el == "." {
			continue
		}
		next, err := unix.Openat(fd, el, dirFlags|unix.O_NOFOLLOW, 0)
		unix.Close(fd)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		fd = next
	}
	f, _, err := OpenRegularAt(fd, els[len(els)-1])
	unix.Close(fd)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(f), path), nil
}
