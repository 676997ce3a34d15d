package journal

import (
	"path"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/internal/xattr"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Extended attributes (user.*, ACLs, security labels, file capabilities)
// are part of what a change replaces: a file restored from the journal is
// a new inode, and a setfattr or setfacl a command makes is a change of
// its own. A file's or directory's attributes are read with its state,
// through a handle opened beneath its directory's (never following a
// link), and put back on what an undo restores.

// xattrs reads the extended attributes of p (a file or a directory)
// whose lstat gave im; ok is false where they could not be read, or
// another object took p's name since (a file capability read from one
// file must never be kept with another's content).
func (c *dirCache) xattrs(p *sandbox.Path, im *Image) (map[string][]byte, bool) {
	var fd int
	if p.IsRoot() {
		f, err := p.Root.Handle()
		if err != nil {
			return nil, false
		}
		fd = int(f.Fd())
	} else {
		d, err := c.parent(p)
		if err != nil {
			return nil, false
		}
		if xattr.NoneAt(int(d.Fd()), path.Base(p.Rel)) {
			return nil, true
		}
		if fd, err = unix.Openat(int(d.Fd()), path.Base(p.Rel), unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
			return nil, false
		}
		defer unix.Close(fd)
	}
	var now unix.Stat_t
	if unix.Fstat(fd, &now) != nil || !im.isOf(&statInfo{st: toSyscall(&now)}) {
		return nil, false
	}
	return xattr.Read(xattr.ProcFd(fd))
}
