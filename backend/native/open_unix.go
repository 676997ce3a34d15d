//go:build unix

package native

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/backend"
)

// The walk opens every directory and file relative to its parent's
// descriptor, without following a symlink and without blocking, starting
// from the root's own descriptor: a directory swapped for a symlink out
// of the root while the walk runs is refused (ELOOP or ENOTDIR), never
// entered.

const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// closeFD closes a descriptor from openBeneath or openDir.
func closeFD(fd int) { unix.Close(fd) }

// openDir opens directory name in dirfd; keepAtime asks that reading it
// leave its access time as it was (see openKeeping).
func openDir(dirfd int, name string, keepAtime bool) (int, error) {
	return openKeeping(dirfd, name, dirFlags, keepAtime)
}

// openKeeping is openat, with backend.ONoAtime when keepAtime: the index
// reads the whole tree for its own upkeep, and a directory read moves its
// access time on a relatime mount when the time is a day old, as nothing
// the user asked for should. The kernel grants O_NOATIME to the owner (or
// CAP_FOWNER) only: someone else's directory is opened as before.
func openKeeping(dirfd int, name string, flags int, keepAtime bool) (int, error) {
	if keepAtime && backend.ONoAtime != 0 {
		fd, err := openat(dirfd, name, flags|backend.ONoAtime)
		if err != unix.EPERM {
			return fd, err
		}
	}
	return openat(dirfd, name, flags)
}

// openat opens name in dirfd with flags, retrying on EINTR.
func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// openBeneath opens directory path, which lies in root (both absolute,
// cleaned), one element at a time from root's descriptor, refusing a
// symlink anywhere below root. root is opened from rootDir, its open
// directory, when given (a narrowed root's name can be swapped), else by
// name. A path outside root is opened from "/" the same way.
func openBeneath(root string, rootDir *os.File, path string, keepAtime bool) (int, error) {
	rel, ok := strings.CutPrefix(path, strings.TrimSuffix(root, "/"))
	if !ok || (rel != "" && rel[0] != '/') {
		root, rel, rootDir = "/", path, nil
	}
	var fd int
	var err error
	if rootDir != nil {
		fd, err = openKeeping(int(rootDir.Fd()), ".", dirFlags, keepAtime)
	} else {
		fd, err = openKeeping(unix.AT_FDCWD, root, dirFlags&^unix.O_NOFOLLOW, keepAtime)
	}
	if err != nil {
		return -1, err
	}
	for _, el := range strings.Split(rel, "/") {
		if el == "" || el == "." {
			continue
		}
		next, err := openKeeping(fd, el, dirFlags, keepAtime)
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}
