package backend

import (
	"os"
	"time"
)

// statDir stats each path whole: Windows has no fstatat.
type statDir struct{ dir string }

func (d *statDir) open(dir string) bool { d.dir = dir; return true }

// regular reports name's modification time and size if it is a regular
// file (a symlink is not followed).
func (d *statDir) regular(name string) (time.Time, int64, bool) {
	fi, err := os.Lstat(d.dir + name)
	if err != nil || !fi.Mode().IsRegular() {
		return time.Time{}, 0, false
	}
	return fi.ModTime(), fi.Size(), true
}

func (d *statDir) close() {}
