package sandbox

import "golang.org/x/sys/unix"

// renameExcl is renameatx_np(RENAME_EXCL).
func renameExcl(olddir int, oldname string, newdir int, newname string) error {
	return unix.RenameatxNp(olddir, oldname, newdir, newname, unix.RENAME_EXCL)
}

// noRenameExcl tells renameExcl's error for a file system without it.
func noRenameExcl(err error) bool { return err == unix.EINVAL || err == unix.ENOTSUP }

// renameSwap is renameatx_np(RENAME_SWAP).
func renameSwap(olddir int, oldname string, newdir int, newname string) error {
	return unix.RenameatxNp(olddir, oldname, newdir, newname, unix.RENAME_SWAP)
}
