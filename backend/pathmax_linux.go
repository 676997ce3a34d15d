package backend

import "syscall"

// PathMax is Linux's PATH_MAX, the terminating NUL included.
const PathMax = 4096

// ErrnoTooLong is the "(os error N)" rg reports for ENAMETOOLONG.
const ErrnoTooLong = int(syscall.ENAMETOOLONG)
