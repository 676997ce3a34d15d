package testenv

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// userFlags are the inode flags chattr sets that a tree's state
// includes (the file system's own, such as extents, are left out).
const userFlags = 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x10000 | 0x800000 // sync, immutable, append, nodump, noatime, dirsync, nocow

// inodeFlags names a regular file's or directory's chattr flags ("" when
// none, or where the file system has none).
func inodeFlags(p string) string {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	defer unix.Close(fd)
	v, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil || v&userFlags == 0 {
		return ""
	}
	return fmt.Sprintf(" flags=%#x", v&userFlags)
}
