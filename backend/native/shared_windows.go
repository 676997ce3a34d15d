//go:build windows

package native

import (
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/windows"
)

// openShared opens path (a file or a directory) for reading as ripgrep
// does on Windows, sharing deletion too, which os.Open does not: while
// the native scanner reads a file or lists a directory, another program
// (an editor saving by renaming a new file over it) or fsmcp's own
// writer can still replace, rename or delete it.
func openShared(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(longPath(path))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// longPath is the absolute, clean path with the \\?\ prefix Windows
// needs for a name past MAX_PATH (os.Open adds it itself).
func longPath(path string) string {
	const maxShort = 248 // MAX_PATH less room for an 8.3 name, as Go's own check
	switch {
	case len(path) < maxShort, strings.HasPrefix(path, `\\?\`):
		return path
	case strings.HasPrefix(path, `\\`):
		return `\\?\UNC\` + path[2:]
	}
	return `\\?\` + path
}
