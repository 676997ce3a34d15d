package files

import (
	"io/fs"
	"syscall"
	"time"
)

// atime is a file's access time from its FileInfo, or its modification
// time when the platform does not say.
func atime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Atim.Sec, st.Atim.Nsec)
	}
	return fi.ModTime()
}
