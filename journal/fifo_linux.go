package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/sandbox"
)

// mkfifo makes a named pipe at p, relative to its parent's handle.
func mkfifo(p *sandbox.Path, perm os.FileMode) error {
	return mknodAt(p, unix.S_IFIFO|uint32(perm.Perm()), 0)
}

// mknodAt makes the node p names (mode: its type and permissions),
// beneath its parent's handle opened through the root.
func mknodAt(p *sandbox.Path, mode uint32, dev int) error {
	d, err := p.Root.FS().Open(path.Dir(p.Rel))
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Mknodat(int(d.Fd()), path.Base(p.Rel), mode, dev)
}

// nodeOf is a socket's or device's kind and device number.
func nodeOf(fi fs.FileInfo) (string, uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", 0
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFSOCK:
		return "socket", 0
	case syscall.S_IFCHR:
		return "char", st.Rdev
	case syscall.S_IFBLK:
		return "block", st.Rdev
	}
	return "", 0
}

// mknode makes the socket or device b names at p (a device needs the
// privilege to make one).
func mknode(p *sandbox.Path, b Image) error {
	kind := map[string]uint32{"socket": unix.S_IFSOCK, "char": unix.S_IFCHR, "block": unix.S_IFBLK}[b.Node]
	if kind == 0 {
		return errors.New("its kind is not known")
	}
	if err := mknodAt(p, kind|uint32(b.perm().Perm()), int(b.Rdev)); err != nil {
		return fmt.Errorf("making the %s again: %w", b.Node, err)
	}
	return nil
}
