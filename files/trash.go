package files

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Trash moves the regular file p into trashDir as "<ms>_<name>" (ms: now
// in Unix milliseconds, LocalCowork's Date.now()) and returns the trash
// file's absolute path. trashDir is the host's own data directory, given
// by configuration, not by a client, so it may lie outside the roots: it
// is created if missing (0700) and opened as a directory of its own. The
// move is a renameat2(RENAME_NOREPLACE) between the file's parent
// directory, opened through the sandbox, and the trash directory's handle,
// so no symlink is followed on either side; across file systems the file
// is copied into the trash (created exclusively) and then removed.
// Errors: NotFound, Outside, NotDir (p is not a regular file), Exists (a
// trash file of that name, an unlikely clash), or the I/O error.
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
	trash, err := os.Open(trashDir)
	if err != nil {
		return "", fmt.Errorf("opening the trash directory %s: %v", trashDir, sandbox.Cause(err))
	}
	defer trash.Close()
	parent, err := p.Dir().Open()
	if err != nil {
		return "", err
	}
	defer parent.Close()
	base := filepath.Base(p.Abs)
	name := strconv.FormatInt(now.UnixMilli(), 10) + "_" + base
	dest := filepath.Join(trashDir, name)
	err = unix.Renameat2(int(parent.Fd()), base, int(trash.Fd()), name, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return dest, nil
	case errors.Is(err, unix.EEXIST):
		return "", fault.Errorf(fault.Exists, dest, "the trash already holds %s", dest)
	case errors.Is(err, unix.ENOENT):
		return "", fault.Errorf(fault.NotFound, p.Abs, "file not found: %s", p.Abs)
	case !errors.Is(err, unix.EXDEV):
		return "", fmt.Errorf("moving %s to the trash: %v", p.Abs, err)
	}
	if err := copyToTrash(p, parent, base, trash, name); err != nil {
		return "", err
	}
	if err := unix.Unlinkat(int(parent.Fd()), base, 0); err != nil {
		unix.Unlinkat(int(trash.Fd()), name, 0)
		return "", fmt.Errorf("removing %s after copying it to the trash: %v", p.Abs, err)
	}
	return dest, nil
}

// copyToTrash copies base (in parent, not followed) to name in trash,
// created exclusively and synced; a failure leaves no trash file.
func copyToTrash(p *sandbox.Path, parent *os.File, base string, trash *os.File, name string) error {
	sfd, err := unix.Openat(int(parent.Fd()), base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("reading %s: %v", p.Abs, err)
	}
	src := os.NewFile(uintptr(sfd), p.Abs)
	defer src.Close()
	var st unix.Stat_t
	if err := unix.Fstat(sfd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fault.Errorf(fault.NotDir, p.Abs, "not a file: %s", p.Abs)
	}
	dfd, err := unix.Openat(int(trash.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("creating %s in the trash: %v", name, err)
	}
	dst := os.NewFile(uintptr(dfd), name)
	_, err = io.Copy(dst, src)
	if err == nil {
		err = dst.Sync()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		unix.Unlinkat(int(trash.Fd()), name, 0)
		return fmt.Errorf("copying %s to the trash: %v", p.Abs, err)
	}
	return nil
}
