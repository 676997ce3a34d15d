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

// owner is fi's uid and gid ([-1, -1] where unknown).
func owner(fi fs.FileInfo) [2]int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return [2]int{int(st.Uid), int(st.Gid)}
	}
	return [2]int{-1, -1}
}
