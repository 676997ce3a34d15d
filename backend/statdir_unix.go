//go:build unix

package backend

import (
	"time"

	"golang.org/x/sys/unix"
)

// statDir stats names relative to an open directory (fstatat), which
// costs less than resolving every full path again; consecutive paths
// mostly share their directory.
type statDir struct {
	fd  int // valid while ok
	ok  bool
	dir string
}

// open makes dir the current directory, reopening only when it changed.
func (d *statDir) open(dir string) bool {
	if d.ok && dir == d.dir {
		return true
	}
	d.close()
	d.dir = dir
	fd, err := unix.Open(dir, dirOpenFlags, 0)
	d.fd, d.ok = fd, err == nil
	return d.ok
}

// regular reports name's modification time and size if it is a regular
// file (a symlink is not followed).
func (d *statDir) regular(name string) (time.Time, int64, bool) {
	var sb unix.Stat_t
	if unix.Fstatat(d.fd, name, &sb, unix.AT_SYMLINK_NOFOLLOW) != nil || sb.Mode&unix.S_IFMT != unix.S_IFREG {
		return time.Time{}, 0, false
	}
	return time.Unix(sb.Mtim.Unix()), sb.Size, true
}

func (d *statDir) close() {
	if d.ok {
		unix.Close(d.fd)
		d.ok = false
	}
}
