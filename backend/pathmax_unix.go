//go:build unix && !linux

package backend

import "syscall"

// PathMax is PATH_MAX of macOS and the BSDs, the terminating NUL included.
const PathMax = 1024

// ErrnoTooLong is the "(os error N)" rg reports for ENAMETOOLONG.
const ErrnoTooLong = int(syscall.ENAMETOOLONG)
