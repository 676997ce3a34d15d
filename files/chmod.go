package files

import (
	"context"
	"fmt"
	"io/fs"
	"os"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Chmod sets the permission bits of a file or directory (a symlink's
// target, which must stay inside the root). Only the 0o777 bits are
// taken. A regular file with more than one hard link is refused (see
// changeMeta). Errors: NotFound, Outside, Permission, Invalid.
func Chmod(ctx context.Context, p *sandbox.Path, perm fs.FileMode) error {
	if perm&^fs.ModePerm != 0 {
		return fault.Errorf(fault.Invalid, p.Abs, "mode %o has bits beyond 0777", uint32(perm))
	}
	return journaledMeta(ctx, "chmod", p, func() error {
		return changeMeta(p, "mode", func(f *os.File) error { return f.Chmod(perm) }, func() error { return p.Chmod(perm) })
	})
}

// journaledMeta journals a mode or owner change of p (its state before, so
// undo restores it) and makes it.
func journaledMeta(ctx context.Context, kind string, p *sandbox.Path, change func() error) error {
	if _, err := p.Stat(); err != nil {
		return err // nothing to change: nothing journaled
	}
	if err := journal.Meta(ctx, p); err != nil {
		return err
	}
	return change()
}

// changeMeta changes p's metadata (onFile on the file opened through its
// root, so the file checked is the file changed), refusing a regular file
// with more than one hard link: a mode or owner belongs to the inode, and
// another name of it may lie outside the roots (a hard link placed in a
// root by someone else), so changing it would change a file outside.
// Writes replace the file with a new inode, so they need no such rule. A
// file that cannot be opened (no read permission, a FIFO) is checked by
// stat and changed by name (byName), which a swap in between could
// defeat only with a hard link already in a root.
func changeMeta(p *sandbox.Path, what string, onFile func(*os.File) error, byName func() error) error {
	f, err := p.Open()
	if err != nil {
		if k := fault.KindOf(err); k == fault.NotFound || k == fault.Outside {
			return err
		}
		fi, err := p.Stat()
		if err != nil {
			return err
		}
		if err := singleLink(p, what, fi); err != nil {
			return err
		}
		return byName()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", p.Abs, sandbox.Cause(err))
	}
	if err := singleLink(p, what, fi); err != nil {
		return err
	}
	if err := onFile(f); err != nil {
		return fmt.Errorf("changing the %s of %s: %w", what, p.Abs, sandbox.Cause(err))
	}
	return nil
}

// singleLink refuses a regular file with more than one hard link.
func singleLink(p *sandbox.Path, what string, fi fs.FileInfo) error {
	if n := hardLinks(fi); fi.Mode().IsRegular() && n > 1 {
		return fault.Errorf(fault.Invalid, p.Abs, "%s has %d hard links, and another may lie outside the allowed directories, so its %s is not changed; write the file anew (which gives it its own inode) first", p.Abs, n, what)
	}
	return nil
}
