package files

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/sandbox"
)

// renameIntoTrash renames p to name in trashDir with renameat2
// (RENAME_NOREPLACE) between two directory handles: p's parent opened
// through the sandbox, and the trash's handle. moved is false, with no error, when
// they are on different file systems (the caller copies instead).
func renameIntoTrash(p *sandbox.Path, trashRoot *os.Root, name string) (moved bool, err error) {
	trash, err := trashRoot.Open(".")
	if err != nil {
		return false, err
	}
	defer trash.Close()
	parent, err := p.Dir().Open()
	if err != nil {
		return false, err
	}
	defer parent.Close()
	err = unix.Renameat2(int(parent.Fd()), filepath.Base(p.Abs), int(trash.Fd()), name, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EXDEV), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EINVAL):
		return false, nil // another file system, or one without RENAME_NOREPLACE: copy
	}
	return false, err
}
