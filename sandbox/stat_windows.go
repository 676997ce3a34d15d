package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// StatAt describes name (one component; "." for dir itself) in the open
// directory dir without following a final symlink. Windows has no
// fstatat: the name is looked up below dir's path, and owner, links and
// inode are not reported.
func StatAt(dir *os.File, name string, in *Info) error {
	fi, err := os.Lstat(filepath.Join(dir.Name(), name))
	if err != nil {
		return err
	}
	*in = Info{Mode: fi.Mode(), Size: fi.Size(), Mtime: fi.ModTime(), Atime: fi.ModTime(), Ctime: fi.ModTime(), Nlink: 1}
	if d, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok {
		in.Atime = time.Unix(0, d.LastAccessTime.Nanoseconds())
		in.Birth = time.Unix(0, d.CreationTime.Nanoseconds())
	}
	return nil
}
