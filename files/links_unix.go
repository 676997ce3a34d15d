//go:build unix

package files

import (
	"io/fs"
	"syscall"
)

// hardLinks is fi's link count (1 when unknown).
func hardLinks(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
