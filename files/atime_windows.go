package files

import (
	"io/fs"
	"syscall"
	"time"
)

// atime is a file's access time from its FileInfo, or its modification
// time when the platform does not say.
func atime(fi fs.FileInfo) time.Time {
	if d, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok {
		return time.Unix(0, d.LastAccessTime.Nanoseconds())
	}
	return fi.ModTime()
}
