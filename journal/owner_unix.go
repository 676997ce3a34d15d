//go:build unix

package journal

import (
	"io/fs"
	"syscall"
)

// owner is a file's uid and gid.
func owner(fi fs.FileInfo) *[2]int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return &[2]int{int(st.Uid), int(st.Gid)}
	}
	return nil
}
