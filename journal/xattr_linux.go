package journal

import (
	"errors"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Extended attributes (user.*, ACLs, security labels, file capabilities)
// are part of what a change replaces: a file restored from the journal is
// a new inode, and a setfattr or setfacl a command makes is a change of
// its own. A file's or directory's attributes are read with its state,
// through a handle opened beneath its directory's (never following a
// link), and put back on what an undo restores.

// xattrMax bounds the attributes kept of one object (names and values):
// past it none is kept and the image says so.
const xattrMax = 64 << 10

// xattrs reads the extended attributes of p (a file or a directory);
// ok is false where they could not be read.
func (c *dirCache) xattrs(p *sandbox.Path) (map[string][]byte, bool) {
	var fd int
	if p.IsRoot() {
		f, err := p.Root.FS().Open(".")
		if err != nil {
			return nil, false
		}
		defer f.Close()
		fd = int(f.Fd())
	} else {
		d, err := c.parent(p)
		if err != nil {
			return nil, false
		}
		if fd, err = unix.Openat(int(d.Fd()), path.Base(p.Rel), unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
			return nil, false
		}
		defer unix.Close(fd)
	}
	return readXattrs(procFd(fd))
}

// procFd names the object an open handle refers to (an O_PATH handle
// too, which the f*xattr calls refuse).
func procFd(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

func readXattrs(name string) (map[string][]byte, bool) {
	buf := make([]byte, 4096)
	n, err := unix.Listxattr(name, buf)
	if errors.Is(err, unix.ERANGE) {
		if n, err = unix.Listxattr(name, nil); err == nil && n <= xattrMax {
			buf = make([]byte, n)
			n, err = unix.Listxattr(name, buf)
		}
	}
	if errors.Is(err, unix.ENOTSUP) {
		return nil, true // a file system without them: nothing to keep
	}
	if err != nil || n > xattrMax {
		return nil, false
	}
	var out map[string][]byte
	total := n
	for _, k := range strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00") {
		if k == "" {
			continue
		}
		sz, err := unix.Getxattr(name, k, nil)
		if err != nil || total+sz > xattrMax {
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

// PutXattrs makes the extended attributes of the object f refers to be
// want: each set, and each other user.* attribute removed. An attribute
// outside user.* that this process may not set (a security label, a
// capability, without the privilege) is left as it is.
func PutXattrs(f *os.File, want map[string][]byte) error {
	name := procFd(int(f.Fd()))
	have, _ := readXattrs(name)
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
