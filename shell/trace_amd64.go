//go:build linux

package shell

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_X86_64
	x32Bit    = 0x40000000 // __X32_SYSCALL_BIT: x32 calls are refused
)

// traps are the generic calls (trace_generic.go) and amd64's older
// path forms.
var traps = withTraps(map[uintptr]trap{
	unix.SYS_OPEN:      withFlags(tPath(Write, 0, true), 1),
	unix.SYS_CREAT:     tPath(Write, 0, true),
	unix.SYS_UNLINK:    tPath(Remove, 0, false),
	unix.SYS_RMDIR:     rmdirTrap(tPath(Remove, 0, false)),
	unix.SYS_RENAME:    second(tPath(Rename, 0, false), none, 1),
	unix.SYS_MKDIR:     mkdirTrap(tPath(Create, 0, false)),
	unix.SYS_MKNOD:     tPath(Create, 0, false),
	unix.SYS_SYMLINK:   tPath(Create, 1, false),
	unix.SYS_LINK:      second(tPath(Create, 1, false), none, 0),
	unix.SYS_CHMOD:     tPath(Meta, 0, true),
	unix.SYS_CHOWN:     tPath(Meta, 0, true),
	unix.SYS_LCHOWN:    tPath(Meta, 0, false),
	unix.SYS_UTIME:     tPath(Meta, 0, true),
	unix.SYS_UTIMES:    tPath(Meta, 0, true),
	unix.SYS_FUTIMESAT: tAt(Meta, 0, 1, true),
})

// setIDCalls are the generic calls that take a mode and amd64's older
// path forms.
var setIDCalls = append([]modeCall{
	{unix.SYS_CHMOD, none, 1},
	{unix.SYS_CREAT, none, 1},
	{unix.SYS_OPEN, 1, 2},
	{unix.SYS_MKNOD, none, 1},
}, genericSetID...)
