package ignore

import (
	"log/slog"
	"path/filepath"
)

// MaxIgnoreFile is the largest ignore file read; a larger one is left
// out (with a log note), so a hostile .gitignore cannot make fsmcp
// allocate without bound.
const MaxIgnoreFile = 1 << 20

// readIgnore returns the contents of the ignore file name in dir (opened
// relative to dirfd when dirfd >= 0), or nil when it is not a regular
// file (a symlink, FIFO or device is never opened through), cannot be
// read or is larger than MaxIgnoreFile. It never blocks.
func readIgnore(dirfd int, dir, name string) []byte {
	data, tooBig := readRegular(dirfd, dir, name, MaxIgnoreFile)
	if tooBig {
		slog.Warn("ignore file larger than 1 MiB left out", "path", filepath.Join(dir, name))
	}
	return data
}
