package journal

import "golang.org/x/sys/unix"

func renameat2(olddir int, oldname string, newdir int, newname string, flags uint) error {
	var f uint
	if flags&renameNoReplace != 0 {
		f = unix.RENAME_NOREPLACE
	}
	return unix.Renameat2(olddir, oldname, newdir, newname, f)
}
