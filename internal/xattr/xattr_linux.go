// Package xattr reads and puts back a file's extended attributes (user.*,
// ACLs, security labels, capabilities) through an open handle, on Linux:
// a file replaced by a new one (an edit, an undo) keeps them.
package xattr

import (
	"errors"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Max bounds the attributes read of one object (names and values): past
// it Read reports them unread.
const Max = 64 << 10

// procFd names the object an open handle refers to (an O_PATH handle
// too, which the f*xattr calls refuse).
func ProcFd(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// NoneAt reports whether the object name beneath the directory handle
// dirfd (a final link not followed) certainly has no extended
// attributes, in one system call (listxattrat, Linux 6.13): most files
// have none, and their reading stops here. False says only "not known"
// (an older kernel, an error, or some attributes): then Read them.
func NoneAt(dirfd int, name string) bool {
	if noListxattrat.Load() {
		return false
	}
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return false
	}
	n, _, e := unix.Syscall6(unix.SYS_LISTXATTRAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), unix.AT_SYMLINK_NOFOLLOW, 0, 0, 0)
	if e == unix.ENOSYS {
		noListxattrat.Store(true) // a kernel before 6.13: not asked again
	}
	return e == 0 && n == 0
}

// noListxattrat is set once the kernel said it has no listxattrat.
var noListxattrat atomic.Bool

// Read reads the extended attributes of the object name refers to
// (ProcFd of a handle); ok is false where they could not be read.
func Read(name string) (map[string][]byte, bool) {
	buf := make([]byte, 4096)
	n, err := unix.Listxattr(name, buf)
	if errors.Is(err, unix.ERANGE) {
		if n, err = unix.Listxattr(name, nil); err == nil && n <= Max {
			buf = make([]byte, n)
			n, err = unix.Listxattr(name, buf)
		}
	}
	if errors.Is(err, unix.ENOTSUP) {
		return nil, true // a file system without them: nothing to keep
	}
	if err != nil || n > Max {
		return nil, false
	}
	var out map[string][]byte
	total := n
	for _, k := range strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00") {
		if k == "" {
			continue
		}
		sz, err := unix.Getxattr(name, k, nil)
		if err != nil || total+sz > Max {
			return nil, false
		}
		v := make([]byte, sz)
		if sz, err = unix.Getxattr(name, k, v); err != nil {
			return nil, false
		}
		total += sz
		if out == nil {
			out = map[string][]byte{}
		}
		out[k] = v[:sz]
	}
	return out, true
}

// Put makes the extended attributes of the object f refers to be
// want: each set, and each other user.* attribute removed. An attribute
// outside user.* that this process may not set (a security label, a
// capability, without the privilege) is left as it is.
func Put(f *os.File, want map[string][]byte) error {
	name := ProcFd(int(f.Fd()))
	have, _ := Read(name)
	var gone []string
	for k := range have {
		if _, ok := want[k]; !ok && strings.HasPrefix(k, "user.") {
			gone = append(gone, k)
		}
	}
	sort.Strings(gone)
	for _, k := range gone {
		if err := unix.Removexattr(name, k); err != nil && !errors.Is(err, unix.ENODATA) {
			return &os.PathError{Op: "removexattr " + k, Path: f.Name(), Err: err}
		}
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v, ok := have[k]; ok && string(v) == string(want[k]) {
			continue
		}
		if err := unix.Setxattr(name, k, want[k], 0); err != nil && strings.HasPrefix(k, "user.") {
			return &os.PathError{Op: "setxattr " + k, Path: f.Name(), Err: err}
		}
	}
	return nil
}
