package backend

import (
	"os"
	"time"
)

// RegularAt reports the modification time and size of path if it is a
// regular file; a symlink is not followed. Windows has no fstatat, so the
// open directory is not used.
func RegularAt(_ int, _, path string) (time.Time, int64, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return time.Time{}, 0, false
	}
	return fi.ModTime(), fi.Size(), true
}
