//go:build linux && (amd64 || arm64)

package shell

import "golang.org/x/sys/unix"

// genericTraps are the calls that change the file system on every
// architecture with a trap table, and how each names what it changes:
// the *at forms and the calls on a descriptor (arm64 has only these;
// amd64 adds its older path forms, trace_amd64.go).
var genericTraps = map[uintptr]trap{
	unix.SYS_OPENAT:       withFlags(tAt(Write, 0, 1, true), 2),
	unix.SYS_OPENAT2:      withHow(tAt(Write, 0, 1, true)),
	unix.SYS_TRUNCATE:     tPath(Write, 0, true),
	unix.SYS_FTRUNCATE:    tFd(Write, 0),
	unix.SYS_FALLOCATE:    tFd(Write, 0),
	unix.SYS_UNLINKAT:     tAt(Remove, 0, 1, false),
	unix.SYS_RENAMEAT:     second(tAt(Rename, 0, 1, false), 2, 3),
	unix.SYS_RENAMEAT2:    withRenameFlags(second(tAt(Rename, 0, 1, false), 2, 3), 4),
	unix.SYS_MKDIRAT:      mkdirTrap(tAt(Create, 0, 1, false)),
	unix.SYS_MKNODAT:      tAt(Create, 0, 1, false),
	unix.SYS_SYMLINKAT:    tAt(Create, 1, 2, false),
	unix.SYS_LINKAT:       second(tAt(Create, 2, 3, false), 0, 1),
	unix.SYS_FCHMOD:       tFd(Meta, 0),
	unix.SYS_FCHMODAT:     tAt(Meta, 0, 1, true),
	unix.SYS_FCHMODAT2:    withAtFlags(tAt(Meta, 0, 1, true), 3),
	unix.SYS_FCHOWN:       tFd(Meta, 0),
	unix.SYS_FCHOWNAT:     withAtFlags(tAt(Meta, 0, 1, true), 4),
	unix.SYS_UTIMENSAT:    withAtFlags(tAt(Meta, 0, 1, true), 3),
	unix.SYS_SETXATTR:     tPath(Meta, 0, true),
	unix.SYS_LSETXATTR:    tPath(Meta, 0, false),
	unix.SYS_FSETXATTR:    tFd(Meta, 0),
	unix.SYS_REMOVEXATTR:  tPath(Meta, 0, true),
	unix.SYS_LREMOVEXATTR: tPath(Meta, 0, false),
	unix.SYS_FREMOVEXATTR: tFd(Meta, 0),
	// Linux 6.13's *xattrat calls: a path beneath a descriptor.
	unix.SYS_SETXATTRAT:    withAtFlags(tAt(Meta, 0, 1, true), 2),
	unix.SYS_REMOVEXATTRAT: withAtFlags(tAt(Meta, 0, 1, true), 2),
	// chattr: inode flags, by ioctl on a descriptor or (Linux 6.17) by name.
	unix.SYS_IOCTL:        withCmds(tFd(Flags, 0), fsIocSetFlags, fsIoc32SetFlags, fsIocFsSetXattr),
	unix.SYS_FILE_SETATTR: withAtFlags(tAt(Flags, 0, 1, true), 4),
}

// refused are the calls that could change files unseen.
var refused = []uintptr{unix.SYS_IO_URING_SETUP, unix.SYS_OPEN_BY_HANDLE_AT}

// withTraps is genericTraps and more, an architecture's own.
func withTraps(more map[uintptr]trap) map[uintptr]trap {
	out := make(map[uintptr]trap, len(genericTraps)+len(more))
	for nr, t := range genericTraps {
		out[nr] = t
	}
	for nr, t := range more {
		out[nr] = t
	}
	return out
}

// genericSetID are the calls on every architecture with a trap table that
// take a file mode (setid_linux.go): the chmods on a descriptor or beneath
// one, the creating open and mknod.
var genericSetID = []modeCall{
	{unix.SYS_FCHMOD, none, 1},
	{unix.SYS_FCHMODAT, none, 2},
	{unix.SYS_FCHMODAT2, none, 2},
	{unix.SYS_OPENAT, 2, 3},
	{unix.SYS_MKNODAT, none, 2},
}
