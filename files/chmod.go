package files

import (
	"io/fs"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Chmod sets the permission bits of a file or directory (a symlink's
// target, which must stay inside the root). Only the 0o777 bits are
// taken. Errors: NotFound, Outside, Permission.
func Chmod(p *sandbox.Path, perm fs.FileMode) error {
	if perm&^fs.ModePerm != 0 {
		return fault.Errorf(fault.Invalid, p.Abs, "mode %o has bits beyond 0777", uint32(perm))
	}
	return p.Chmod(perm)
}
