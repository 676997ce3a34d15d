package journal

import (
	"os"
	"path"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/sandbox"
)

// mkfifo makes a named pipe at p, relative to its parent's handle.
func mkfifo(p *sandbox.Path, perm os.FileMode) error {
	d, err := p.Root.FS().Open(path.Dir(p.Rel))
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Mkfifoat(int(d.Fd()), path.Base(p.Rel), uint32(perm.Perm()))
}
