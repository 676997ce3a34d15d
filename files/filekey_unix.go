//go:build unix

package files

import (
	"io/fs"
	"os"
	"syscall"

	"github.com/fsmcp/fsmcp/sandbox"
)

// fileKey identifies the file behind fi by device and inode.
func fileKey(_ *os.File, fi fs.FileInfo, t *sandbox.Path) any {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return [2]uint64{uint64(st.Dev), st.Ino}
	}
	return t.Root.Path + "/" + t.Rel
}
