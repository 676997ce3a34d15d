//go:build linux || darwin

package journal

import (
	"io"
	"io/fs"
	"path"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/sandbox"
)

// openRead opens the file p names for reading beneath its directory's
// handle: one openat, no link followed, a FIFO not waited on, and a
// bare descriptor (an *os.File would try the poller, which a regular
// file refuses, at four system calls more).
func (c *dirCache) openRead(p *sandbox.Path) (readFile, error) {
	d, err := c.parent(p)
	if err != nil {
		return p.OpenFile(oRead, 0)
	}
	for {
		fd, err := unix.Openat(int(d.Fd()), path.Base(p.Rel), oRead|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: p.Abs, Err: err}
		}
		return &fdFile{fd: fd, name: path.Base(p.Rel)}, nil
	}
}

// fdFile is a descriptor read with plain system calls.
type fdFile struct {
	fd   int
	name string
}

func (f *fdFile) Read(b []byte) (int, error) {
	for {
		n, err := unix.Read(f.fd, b)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *fdFile) Stat() (fs.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return nil, err
	}
	return &statInfo{name: f.name, st: toSyscall(&st)}, nil
}

func (f *fdFile) Close() error { return unix.Close(f.fd) }
