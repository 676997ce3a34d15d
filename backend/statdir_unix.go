//go:build unix

package backend

import (
	"time"

	"golang.org/x/sys/unix"
)

// statDir stats files relative to an open base directory (fstatat), one
// system call per file: cheaper than opening each file's directory, or
// resolving every full path again from "/".
type statDir struct {
	fd int // valid after open
}

// open opens dir as the base.
func (d *statDir) open(dir string) error {
	fd, err := unix.Open(dir, dirOpenFlags, 0)
	if err != nil {
		return err
	}
	d.fd = fd
	return nil
}

// regular reports the modification time and size of path, which is rel
// under the base, if it is a regular file (a symlink is not followed).
func (d *statDir) regular(path, rel string) (time.Time, int64, bool) {
	return RegularAt(d.fd, rel, path)
}

// RegularAt reports the modification time and size of name in the open
// directory dirfd (path is its full path) if it is a regular file; a
// symlink is not followed.
func RegularAt(dirfd int, name, path string) (time.Time, int64, bool) {
	var sb unix.Stat_t
	if unix.Fstatat(dirfd, name, &sb, unix.AT_SYMLINK_NOFOLLOW) != nil || sb.Mode&unix.S_IFMT != unix.S_IFREG {
		return time.Time{}, 0, false
	}
	return time.Unix(sb.Mtim.Unix()), sb.Size, true
}

func (d *statDir) close() { unix.Close(d.fd) }
