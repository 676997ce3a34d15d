//go:build unix

package driver

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/backend"
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
	return backend.RegularAt(d.fd, rel, path)
}

func (d *statDir) close() { unix.Close(d.fd) }
