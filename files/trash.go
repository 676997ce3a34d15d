package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Trash moves the regular file p into trashDir as "<ms>_<name>" (ms: now
// in Unix milliseconds, LocalCowork's Date.now()) and returns the trash
// file's absolute path. trashDir is the host's own data directory, given
// by configuration, not by a client; it is created if missing (0700) and
// opened once, as a root of its own (OpenTrash), and every later step goes
// through that handle, never through its name again. Where the kernel
// allows (Linux), the move is one renameat2(RENAME_NOREPLACE) between the
// file's parent directory, opened through the sandbox, and the trash's
// handle, so no symlink is followed on either side; elsewhere, or across
// file systems, the file is copied into the trash (created exclusively,
// synced) and then removed.
// Errors: NotFound, Outside, NotDir (p is not a regular file), Exists (a
// trash file of that name, an unlikely clash), Invalid (a relative
// trashDir), or the I/O error.
//
// The journal keeps the file's content as for a delete, so an undo brings
// it back whether or not the trash is inside the roots.
func Trash(ctx context.Context, p *sandbox.Path, trashDir string, now time.Time, within ...*sandbox.Sandbox) (dest string, err error) {
	fi, err := p.Lstat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fault.Errorf(fault.NotDir, p.Abs, "not a file: %s", p.Abs)
	}
	name := strconv.FormatInt(now.UnixMilli(), 10) + "_" + filepath.Base(p.Abs)
	dest = filepath.Join(filepath.Clean(trashDir), name)
	// A trash inside the roots is a move there (an undo moves the file
	// back, and removes the trash directory if this made it); one outside
	// them, a removal the journal keeps, and its undo takes the trash's
	// copy out again.
	var inside *sandbox.Path
	for _, sb := range within {
		if sb == nil {
			continue
		}
		if tp, err := sb.Resolve(dest); err == nil {
			inside = tp
			if err := journal.Keep(ctx, tp.Dir()); err != nil {
				return "", err
			}
			break
		}
	}
	trash, err := OpenTrash(trashDir, within...)
	if err != nil {
		return "", err
	}
	defer trash.Close()
	if inside != nil {
		err = journal.Moved(ctx, p, inside)
	} else {
		err = journal.Trashed(ctx, p, dest)
	}
	if err != nil {
		return "", err
	}
	moved, err := renameIntoTrash(p, trash, name)
	switch {
	case moved:
		return dest, nil
	case errors.Is(err, fs.ErrExist):
		return "", fault.Errorf(fault.Exists, dest, "the trash already holds %s", dest)
	case errors.Is(err, fs.ErrNotExist):
		return "", fault.Errorf(fault.NotFound, p.Abs, "file not found: %s", p.Abs)
	case err != nil:
		return "", fmt.Errorf("moving %s to the trash: %v", p.Abs, sandbox.Cause(err))
	}
	if err := copyToTrash(p, trash, dest, name); err != nil {
		return "", err
	}
	if err := p.Remove(); err != nil {
		trash.Remove(name)
		return "", fmt.Errorf("removing %s after copying it to the trash: %v", p.Abs, sandbox.Cause(err))
	}
	return dest, nil
}

// OpenTrash makes (0700) and opens the trash directory dir as a root of
// its own. A dir inside a root of any of the within sandboxes (LocalCowork
// defaults to ~/.localcowork/trash with ~ allowed) is a path the agent can
// change — it may put a link out at ~/.localcowork — so it is made and
// opened beneath that root's handle, which never follows a link out of the
// root (a link out is refused as Outside). Only a dir outside every root is
// made and opened by name: the host named it, the agent cannot touch it.
func OpenTrash(dir string, within ...*sandbox.Sandbox) (*os.Root, error) {
	if !filepath.IsAbs(dir) {
		return nil, fault.Errorf(fault.Invalid, dir, "the trash directory %q is not an absolute path", dir)
	}
	for _, sb := range within {
		if sb == nil {
			continue
		}
		tp, err := sb.Resolve(dir)
		if err != nil {
			continue
		}
		h := tp.Root.FS()
		if err := h.MkdirAll(tp.Rel, 0o700); err != nil {
			if sandbox.IsOutside(err) {
				return nil, fault.Errorf(fault.Outside, dir, "the trash directory %s leads out of the allowed directories (a symlink); it is not used", dir)
			}
			return nil, fmt.Errorf("creating the trash directory %s: %v", dir, sandbox.Cause(err))
		}
		r, err := h.OpenRoot(tp.Rel)
		if sandbox.IsOutside(err) {
			return nil, fault.Errorf(fault.Outside, dir, "the trash directory %s leads out of the allowed directories (a symlink); it is not used", dir)
		}
		if err != nil {
			return nil, fmt.Errorf("opening the trash directory %s: %v", dir, sandbox.Cause(err))
		}
		return r, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the trash directory %s: %v", dir, sandbox.Cause(err))
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the trash directory %s: %v", dir, sandbox.Cause(err))
	}
	return r, nil
}

// copyToTrash copies p (opened through the sandbox, checked regular on
// its handle) to name in the trash, created exclusively and synced; a
// failure leaves no trash file.
func copyToTrash(p *sandbox.Path, trash *os.Root, dest, name string) error {
	src, err := p.Open()
	if err != nil {
		return err
	}
	defer src.Close()
	if fi, err := src.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fault.Errorf(fault.NotDir, p.Abs, "not a file: %s", p.Abs)
	}
	dst, err := trash.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fault.Errorf(fault.Exists, dest, "the trash already holds %s", dest)
		}
		return fmt.Errorf("creating %s in the trash: %v", name, sandbox.Cause(err))
	}
	_, err = io.Copy(dst, src)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		trash.Remove(name)
		return fmt.Errorf("copying %s to the trash: %v", p.Abs, sandbox.Cause(err))
	}
	return nil
}
