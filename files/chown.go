package files

import (
	"context"
	"math"
	"os"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Chown sets the owner and group of a file or directory (a symlink's
// target, which must stay inside the root); -1 keeps one as it is. A
// regular file with more than one hard link is refused (see changeMeta).
// Errors: NotFound, Outside, Permission (only root may give files away),
// Invalid.
// An id is 32 bits: one past that would be cut by the system call (2^32
// would become 0, root), so it is refused.
func Chown(ctx context.Context, p *sandbox.Path, uid, gid int) error {
	if uid < -1 || gid < -1 || int64(uid) > math.MaxUint32 || int64(gid) > math.MaxUint32 {
		return fault.Errorf(fault.Invalid, p.Abs, "uid %d and gid %d must be from -1 to 4294967295", uid, gid)
	}
	return journaledMeta(ctx, "chown", p, func() error {
		return changeMeta(p, "owner", func(f *os.File) error { return f.Chown(uid, gid) }, func() error { return p.Chown(uid, gid) })
	})
}
