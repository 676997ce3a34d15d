package files

import (
	"os"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Chown sets the owner and group of a file or directory (a symlink's
// target, which must stay inside the root); -1 keeps one as it is. A
// regular file with more than one hard link is refused (see changeMeta).
// Errors: NotFound, Outside, Permission (only root may give files away),
// Invalid.
func Chown(p *sandbox.Path, uid, gid int) error {
	if uid < -1 || gid < -1 {
		return fault.Errorf(fault.Invalid, p.Abs, "uid %d and gid %d must be -1 or more", uid, gid)
	}
	return changeMeta(p, "owner", func(f *os.File) error { return f.Chown(uid, gid) }, func() error { return p.Chown(uid, gid) })
}
