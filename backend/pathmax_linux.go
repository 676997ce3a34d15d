package backend

import "syscall"

// PathMax is Linux's PATH_MAX, the terminating NUL included.
const PathMax = 4096

// errnoTooLong is the "(os error N)" rg reports for ENAMETOOLONG.
const errnoTooLong = int(syscall.ENAMETOOLONG)
