//go:build unix

package index

import (
	"cmp"
	"errors"
	"os"
	"path"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/backend"
)

// openRegular opens rel in root without blocking (a FIFO swapped in is
// not waited on) and refuses anything but a regular file. Reading it
// leaves its access time as it was where the kernel grants that (the
// owner's files: backend.ONoAtime): indexing is no one's reading.
func openRegular(root *os.Root, rel string) (*os.File, error) {
	const flags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW
	f, err := root.OpenFile(rel, flags|backend.ONoAtime, 0)
	if backend.ONoAtime != 0 && errors.Is(err, syscall.EPERM) {
		f, err = root.OpenFile(rel, flags, 0)
	}
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, os.ErrInvalid
	}
	return f, nil
}

func metaOf(st *unix.Stat_t) meta {
	return meta{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: uint64(st.Ino)}
}

// fileMetaOf is f's metadata and device.
func fileMetaOf(f *os.File) (meta, uint64, error) {
	var st unix.Stat_t
	raw, err := f.SyscallConn()
	if err != nil {
		return meta{}, 0, err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) }); err != nil {
		return meta{}, 0, err
	}
	if serr != nil {
		return meta{}, 0, serr
	}
	return metaOf(&st), uint64(st.Dev), nil
}

// statAt is the metadata of name in the open directory dirfd (path is
// its full path), a symlink not followed.
func statAt(dirfd int, name, _ string) (meta, bool) {
	m, _, ok := fileAt(dirfd, name)
	return m, ok
}

// fileAt is the metadata and link count of the regular file name in the
// open directory dirfd, a symlink not followed.
func fileAt(dirfd int, name string) (meta, uint64, bool) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			return meta{}, 0, false
		}
		return metaOf(&st), uint64(st.Nlink), true
	}
}

// mapFile maps path read-only.
func mapFile(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 || int64(int(fi.Size())) != fi.Size() {
		return nil, nil, errFormat
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return unix.Munmap(data) }, nil
}

// statIno is fi's inode and link count.
func statIno(fi os.FileInfo) (ino, nlink uint64, regular bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Ino), uint64(st.Nlink), true
}

// dirStat stats files by name relative to an open directory, kept open
// from one name to the next of the same directory (a sorted list's
// names come in runs), so an update checks the files it keeps with one
// fstatat each instead of an open, stats and a close.
type dirStat struct {
	root *os.Root
	dir  string
	f    *os.File
}

// stat is the metadata of the regular file rel, a symlink not followed.
func (d *dirStat) stat(rel string) (meta, bool) {
	dir, base := path.Split(rel)
	if d.f == nil || dir != d.dir {
		d.close()
		f, err := d.root.Open(cmp.Or(strings.TrimSuffix(dir, "/"), "."))
		if err != nil {
			return meta{}, false
		}
		d.f, d.dir = f, dir
	}
	raw, err := d.f.SyscallConn()
	if err != nil {
		return meta{}, false
	}
	var m meta
	ok := false
	raw.Control(func(fd uintptr) { m, _, ok = fileAt(int(fd), base) })
	return m, ok
}

func (d *dirStat) close() {
	if d.f != nil {
		d.f.Close()
		d.f = nil
	}
}
