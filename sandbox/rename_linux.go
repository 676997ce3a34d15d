package sandbox

import "golang.org/x/sys/unix"

// renameExcl is renameat2(RENAME_NOREPLACE).
func renameExcl(olddir int, oldname string, newdir int, newname string) error {
	return unix.Renameat2(olddir, oldname, newdir, newname, unix.RENAME_NOREPLACE)
}

// noRenameExcl tells renameExcl's error for a kernel or file system
// without it.
func noRenameExcl(err error) bool { return err == unix.EINVAL || err == unix.ENOSYS }

// renameSwap is renameat2(RENAME_EXCHANGE).
func renameSwap(olddir int, oldname string, newdir int, newname string) error {
	return unix.Renameat2(olddir, oldname, newdir, newname, unix.RENAME_EXCHANGE)
}
