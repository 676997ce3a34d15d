//go:build unix

package backend

import (
	"time"

	"golang.org/x/sys/unix"
)

// RegularAt reports the modification time and size of name in the open
// directory dirfd (path is its full path) if it is a regular file; a
// symlink is not followed.
func RegularAt(dirfd int, name, path string) (time.Time, int64, bool) {
	var sb unix.Stat_t
	if unix.Fstatat(dirfd, name, &sb, unix.AT_SYMLINK_NOFOLLOW) != nil || sb.Mode&unix.S_IFMT != unix.S_IFREG {
		return time.Time{}, 0, false
	}
	return time.Unix(sb.Mtim.Unix()), sb.Size, true
}
