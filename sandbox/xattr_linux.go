package sandbox

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/internal/xattr"
)

// xattrs are the extended attributes of the file p names, which a file
// written over it keeps (nil where it has none or they cannot be read).
func (p *Path) xattrs() map[string][]byte {
	f, err := p.Root.fs.OpenFile(p.Rel, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	a, _ := xattr.Read(xattr.ProcFd(int(f.Fd())))
	return a
}
