//go:build !linux && !darwin

package journal

import "io/fs"

// sysInfo is what fs.FileInfo hides of a Unix stat; this system has none
// of it (owners, access times and inode numbers are not kept).
type sysInfo struct {
	uid, gid        int
	atime           int64
	dev, ino, nlink uint64
}

func sysStat(fs.FileInfo) (sysInfo, bool) { return sysInfo{}, false }
