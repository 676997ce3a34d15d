package shell

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The sandboxed shell makes no set-uid or set-gid file. Root in the
// shell's namespaces is the host's root (when fsmcp runs as root) and
// owns what it makes, so `chmod 4755` on a copy of bash in a root left a
// way up for anyone who could run it later, outside the sandbox; under
// any other user it is a way into that user. fsmcp's own tools never set
// those bits either (files.Chmod takes 0777 at most; a copy keeps them
// only with the source's owner). So a seccomp filter, installed by the
// helper before it execs bash and inherited by everything bash starts,
// refuses (EPERM) every call whose mode argument holds S_ISUID or
// S_ISGID: the chmods, the creating opens and mknod. The mode is a value
// in a register, not memory the program could change after the check,
// so the filter decides exactly. openat2, whose mode lies in a struct the
// filter cannot read, is refused with ENOSYS, as a kernel before 5.6
// would, and programs fall back to openat; io_uring (whose opens take a
// mode too) is refused. File capabilities, the other way to make such a
// program, need CAP_SETFCAP, which the command never holds.

// setIDBits are the mode bits the shell may not set.
const setIDBits = unix.S_ISUID | unix.S_ISGID

// creating are the open flags that make an open use its mode.
const creating = unix.O_CREAT | (unix.O_TMPFILE &^ unix.O_DIRECTORY)

// modeCall is a call that takes a mode, and which arguments hold it and,
// for opens, the flags that make it count (none: it always does).
type modeCall struct {
	nr    uintptr
	flags int
	mode  int
}

// setIDFilter is the seccomp program of the set-id wall: the
// architecture checked (another, or x32, is refused with ENOSYS, as the
// trace filter does), each mode call's mode tested, openat2 and io_uring
// refused.
func setIDFilter() ([]unix.SockFilter, error) {
	if setIDCalls == nil {
		return nil, errors.New("this architecture has no table of calls that take a mode")
	}
	type ins = unix.SockFilter
	prog := []ins{
		{Code: bpfLdAbs, K: offArch},
		{Code: bpfJeq, K: auditArch, Jt: 1},
		{Code: bpfRet, K: retENOSYS},
		{Code: bpfLdAbs, K: offNr},
	}
	if x32Bit != 0 {
		prog = append(prog, ins{Code: bpfJset, K: x32Bit, Jf: 1}, ins{Code: bpfRet, K: retENOSYS})
	}
	// One jeq per call, jumping to its block after the list.
	type jump struct{ at, block int }
	var jumps []jump
	var blocks [][]ins
	for _, c := range setIDCalls {
		prog = append(prog, ins{Code: bpfJeq, K: uint32(c.nr)})
		jumps = append(jumps, jump{len(prog) - 1, len(blocks)})
		var b []ins
		if c.flags != none {
			b = append(b, ins{Code: bpfLdAbs, K: uint32(offArgs + 8*c.flags)},
				ins{Code: bpfJset, K: creating, Jf: 2}) // not creating: to the allow below
		}
		b = append(b, ins{Code: bpfLdAbs, K: uint32(offArgs + 8*c.mode)},
			ins{Code: bpfJset, K: setIDBits, Jt: 1},
			ins{Code: bpfRet, K: retAllow},
			ins{Code: bpfRet, K: retEPERM})
		blocks = append(blocks, b)
	}
	for _, r := range []struct {
		nr  uintptr
		ret uint32
	}{{unix.SYS_OPENAT2, retENOSYS}, {unix.SYS_IO_URING_SETUP, retEPERM}} {
		prog = append(prog, ins{Code: bpfJeq, K: uint32(r.nr)})
		jumps = append(jumps, jump{len(prog) - 1, len(blocks)})
		blocks = append(blocks, []ins{{Code: bpfRet, K: r.ret}})
	}
	prog = append(prog, ins{Code: bpfRet, K: retAllow})
	for i, j := range jumps {
		start := len(prog)
		for _, b := range blocks[:j.block] {
			start += len(b)
		}
		off := start - j.at - 1
		if off > 255 {
			return nil, fmt.Errorf("seccomp filter: a jump of %d does not fit", off)
		}
		prog[jumps[i].at].Jt = uint8(off)
	}
	for _, b := range blocks {
		prog = append(prog, b...)
	}
	return prog, nil
}

// installSetIDWall installs the set-id wall on this thread, which execs
// bash next. An architecture fsmcp is not built for (it has no table of
// the calls) goes without.
func installSetIDWall() error {
	if setIDCalls == nil {
		return nil
	}
	runtime.LockOSThread()
	prog, err := setIDFilter()
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fp))); e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}
