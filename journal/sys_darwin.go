package journal

import (
	"io/fs"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sysInfo is what fs.FileInfo hides of a Unix stat.
type sysInfo struct {
	uid, gid        int
	atime           int64
	dev, ino, nlink uint64
}

func sysStat(fi fs.FileInfo) (sysInfo, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return sysInfo{}, false
	}
	return sysInfo{int(st.Uid), int(st.Gid), st.Atimespec.Nano(), uint64(st.Dev), st.Ino, uint64(st.Nlink)}, true
}

func mtimeOf(st *syscall.Stat_t) (int64, int64) { return st.Mtimespec.Sec, st.Mtimespec.Nsec }

// toSyscall is a unix.Stat_t as syscall's (the same layout on Darwin).
func toSyscall(st *unix.Stat_t) syscall.Stat_t { return *(*syscall.Stat_t)(unsafe.Pointer(st)) }

// The two stat structures have one size (and so, generated from one C
// struct, one layout): this fails to compile where they do not.
var (
	_ [unsafe.Sizeof(unix.Stat_t{}) - unsafe.Sizeof(syscall.Stat_t{})]byte
	_ [unsafe.Sizeof(syscall.Stat_t{}) - unsafe.Sizeof(unix.Stat_t{})]byte
)
