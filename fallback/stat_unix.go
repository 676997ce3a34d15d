//go:build unix

package fallback

import (
	"time"

	"golang.org/x/sys/unix"
)

// regularAt reports the modification time and size of name in the open
// directory dirfd (path is its full path) if it is a regular file; a
// symlink is not followed.
func regularAt(dirfd int, name, path string) (time.Time, int64, bool) {
	var sb unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &sb, unix.AT_SYMLINK_NOFOLLOW); err != nil || sb.Mode&unix.S_IFMT != unix.S_IFREG {
		return time.Time{}, 0, false
	}
	return time.Unix(sb.Mtim.Unix()), sb.Size, true
}
