//go:build unix

package driver

import (
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/backend"
)

// statDir is the open base directory the files of a listing are stat'ed
// below (statCursor), without resolving every full path again from "/".
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

func (d *statDir) close() { unix.Close(d.fd) }

// statCursor stats files beside the directory below the base it opened
// last: rg lists a directory's files together, so a file is one fstatat
// of its name, not of its path from the base (a lookup of every name on
// the way), and each directory is opened about once.
type statCursor struct {
	base int
	dir  string
	fd   int
}

// cursor is one goroutine's cursor over d.
func (d *statDir) cursor() *statCursor { return &statCursor{base: d.fd, fd: -1} }

// regular is statDir.regular, beside the file's directory.
func (c *statCursor) regular(path, rel string) (time.Time, int64, bool) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return backend.RegularAt(c.base, rel, path)
	}
	if c.fd < 0 || rel[:i] != c.dir {
		c.close()
		fd, err := unix.Openat(c.base, rel[:i], dirOpenFlags, 0)
		if err != nil {
			return time.Time{}, 0, false
		}
		c.fd, c.dir = fd, rel[:i]
	}
	return backend.RegularAt(c.fd, rel[i+1:], path)
}

func (c *statCursor) close() {
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
}
