package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/internal/xattr"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// JournalOps are the writers' operations the change journal's undo uses:
// a restore takes the locks and the care of every other change.
type JournalOps struct{}

var _ journal.Ops = JournalOps{}

// RestoreFile makes p a regular file holding size bytes from r, under
// the writers' locks (journaled as any write): written whole to a new file, which gets its
// owner, mode and times before it takes p's name, so nothing is ever
// changed through a name that might have been swapped meanwhile.
func (JournalOps) RestoreFile(ctx context.Context, p *sandbox.Path, r io.Reader, size int64, a journal.Attrs) error {
	return underLocks(ctx, p, "restore", func(held io.Closer) error {
		// Journaled under the lock: what an edit left just before is
		// what the undo's own entry keeps.
		if err := journal.Replaced(ctx, p); err != nil {
			return err
		}
		return restoreFile(p, r, size, a, held)
	})
}

// restoreFile puts the restored content in place; held, if not nil, is
// the file it replaces, held open for its lock (sandbox.Temp.CommitOver).
func restoreFile(p *sandbox.Path, r io.Reader, size int64, a journal.Attrs, held io.Closer) error {
	if err := p.Dir().MkdirAll(0o755); err != nil {
		return err
	}
	tf, err := p.CreateTemp(0o600)
	if err != nil {
		return err
	}
	defer tf.Discard()
	f := tf.File()
	n, err := io.Copy(f, io.LimitReader(r, size+1))
	if err != nil {
		return fmt.Errorf("restoring %s: %v", escape.Name(p.Abs), sandbox.Cause(err))
	}
	if n != size {
		return fmt.Errorf("restoring %s: the journal's copy holds %d bytes, not %d; nothing was changed", escape.Name(p.Abs), n, size)
	}
	ownerErr := setAttrs(p, f, a)
	if ownerErr != nil && !isOwnerError(ownerErr) {
		return ownerErr
	}
	if err := tf.CommitOver(held); err != nil {
		return err
	}
	return ownerErr
}

// SetMeta puts a's owner, mode and times back on the object p names,
// through a descriptor where it can be opened, refusing a regular file
// with more than one hard link (changeMeta's rule).
func (JournalOps) SetMeta(ctx context.Context, p *sandbox.Path, a journal.Attrs) error {
	if fi, err := p.Lstat(); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return setLinkMeta(p, a)
	}
	var ownerErr error
	err := changeMeta(p, "mode", func(f *os.File) error {
		ownerErr = setAttrs(p, f, a)
		if isOwnerError(ownerErr) {
			return nil
		}
		return ownerErr
	}, func() error {
		if a.Owner != nil {
			if err := p.Chown(a.Owner[0], a.Owner[1]); err != nil {
				ownerErr = &journal.OwnerError{Path: escape.Name(p.Abs), UID: a.Owner[0], GID: a.Owner[1], Err: sandbox.Cause(err)}
			}
		}
		if err := p.Chmod(journal.FileMode(a.Mode)); err != nil {
			return err
		}
		return p.Chtimes(a.ATime, a.MTime)
	})
	if err != nil {
		return err
	}
	return ownerErr
}

// setLinkMeta puts a's owner and times back on the symlink p itself (a
// link has no mode of its own; what it points to is not touched).
func setLinkMeta(p *sandbox.Path, a journal.Attrs) error {
	var ownerErr error
	if a.Owner != nil {
		if err := p.Lchown(a.Owner[0], a.Owner[1]); err != nil {
			ownerErr = &journal.OwnerError{Path: escape.Name(p.Abs), UID: a.Owner[0], GID: a.Owner[1], Err: sandbox.Cause(err)}
		}
	}
	if err := p.Lchtimes(a.ATime, a.MTime); err != nil {
		return err
	}
	return ownerErr
}

// Move moves src to dst where a rename cannot (another root or file
// system): copied, then removed.
func (JournalOps) Move(ctx context.Context, src, dst *sandbox.Path) error {
	return MoveWith(ctx, src, dst, MoveOptions{MakeParents: true})
}

// setAttrs gives the open file f the owner (first: a chown clears the
// set-uid bits), mode and times of a.
func setAttrs(p *sandbox.Path, f *os.File, a journal.Attrs) error {
	var ownerErr error
	if a.Owner != nil {
		if fi, err := f.Stat(); err == nil && owner(fi)[0] >= 0 && owner(fi) != *a.Owner {
			if err := f.Chown(a.Owner[0], a.Owner[1]); err != nil {
				ownerErr = &journal.OwnerError{Path: escape.Name(p.Abs), UID: a.Owner[0], GID: a.Owner[1], Err: sandbox.Cause(err)}
			}
		}
	}
	if a.XattrsKept { // after the owner (a chown drops a capability), before the mode
		if err := xattr.Put(f, a.Xattrs); err != nil {
			return fmt.Errorf("restoring the extended attributes of %s: %v", escape.Name(p.Abs), sandbox.Cause(err))
		}
	}
	if err := f.Chmod(journal.FileMode(a.Mode)); err != nil {
		return fmt.Errorf("restoring the mode of %s: %v", escape.Name(p.Abs), sandbox.Cause(err))
	}
	if err := sandbox.SetFileTimes(f, a.ATime, a.MTime); err != nil {
		return fmt.Errorf("restoring the times of %s: %v", escape.Name(p.Abs), sandbox.Cause(err))
	}
	return ownerErr
}

func isOwnerError(err error) bool {
	var oe *journal.OwnerError
	return errors.As(err, &oe)
}
