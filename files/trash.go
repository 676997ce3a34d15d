package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Trash moves the regular file p into trashDir as "<ms>_<name>" (ms: now
// in Unix milliseconds, LocalCowork's Date.now()) and returns the trash
// file's absolute path. trashDir is the host's own data directory, given
// by configuration, not by a client, so it may lie outside the roots: it
// is created if missing (0700) and opened as a root of its own. Where the
// kernel allows (Linux), the move is one renameat2(RENAME_NOREPLACE)
// between the file's parent directory, opened through the sandbox, and the
// trash directory's handle, so no symlink is followed on either side;
// elsewhere, or across file systems, the file is copied into the trash
// (created exclusively, synced) and then removed.
// Errors: NotFound, Outside, NotDir (p is not a regular file), Exists (a
// trash file of that name, an unlikely clash), Invalid (a relative
// trashDir), or the I/O error.
func Trash(p *sandbox.Path, trashDir string, now time.Time) (string, error) {
	fi, err := p.Lstat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fault.Errorf(fault.NotDir, p.Abs, "not a file: %s", p.Abs)
	}
	if !filepath.IsAbs(trashDir) {
		return "", fault.Errorf(fault.Invalid, trashDir, "the trash directory %q is not an absolute path", trashDir)
	}
	if err := os.MkdirAll(trashDir, 0o700); err != nil {
		return "", fmt.Errorf("creating the trash directory %s: %v", trashDir, sandbox.Cause(err))
	}
	name := strconv.FormatInt(now.UnixMilli(), 10) + "_" + filepath.Base(p.Abs)
	dest := filepath.Join(trashDir, name)
	moved, err := renameIntoTrash(p, trashDir, name)
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
	if err := copyToTrash(p, trashDir, name); err != nil {
		return "", err
	}
	if err := p.Remove(); err != nil {
		if trash, rerr := os.OpenRoot(trashDir); rerr == nil {
			trash.Remove(name)
			trash.Close()
		}
		return "", fmt.Errorf("removing %s after copying it to the trash: %v", p.Abs, sandbox.Cause(err))
	}
	return dest, nil
}

// copyToTrash copies p (opened through the sandbox, checked regular on
// its handle) to name in the trash, created exclusively and synced; a
// failure leaves no trash file.
func copyToTrash(p *sandbox.Path, trashDir, name string) error {
	src, err := p.Open()
	if err != nil {
		return err
	}
	defer src.Close()
	if fi, err := src.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fault.Errorf(fault.NotDir, p.Abs, "not a file: %s", p.Abs)
	}
	trash, err := os.OpenRoot(trashDir)
	if err != nil {
		return fmt.Errorf("opening the trash directory %s: %v", trashDir, sandbox.Cause(err))
	}
	defer trash.Close()
	dst, err := trash.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fault.Errorf(fault.Exists, filepath.Join(trashDir, name), "the trash already holds %s", filepath.Join(trashDir, name))
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
