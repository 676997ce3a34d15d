//go:build unix

package shellrec

import (
	"io/fs"
	"syscall"
)

// nlinkOf is fi's link count (1 where the system does not say).
func nlinkOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
