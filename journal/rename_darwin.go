package journal

import "golang.org/x/sys/unix"

func renameat2(olddir int, oldname string, newdir int, newname string, flags uint) error {
	if flags&renameNoReplace != 0 {
		return unix.RenameatxNp(olddir, oldname, newdir, newname, unix.RENAME_EXCL)
	}
	return unix.Renameat(olddir, oldname, newdir, newname)
}
