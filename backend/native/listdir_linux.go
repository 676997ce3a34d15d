package native

import (
	"encoding/binary"
	"io/fs"

	"golang.org/x/sys/unix"
)

// direntsBuf is the getdents64 buffer of one walker (most directories
// fit in one call).
const direntsBuf = 32 << 10

// listState is listDir's scratch space in a walker.
type listState struct {
	dents []byte   // the getdents64 buffer
	ents  []dirent // the entries of the directory last listed
}

// listDir lists the open directory fd into st.list.ents with getdents64 on
// fd itself: no duplicated descriptor, no os.File (whose poller
// registration costs three system calls per directory and fails anyway),
// no allocation per entry but its name. An entry whose type the file
// system does not report is looked up with fstatat, not following a
// link. A read error mid-way gives the entries read so far; err is set
// only when the directory could not be listed at all.
func listDir(st *workerState, fd int, _ string) ([]dirent, error) {
	ls := &st.list
	if cap(ls.dents) == 0 {
		ls.dents = make([]byte, direntsBuf)
	}
	buf := ls.dents[:cap(ls.dents)]
	ents := ls.ents[:0]
	for first := true; ; first = false {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if first {
				return nil, err
			}
			break
		}
		if n <= 0 {
			break
		}
		ents = parseDirents(fd, buf[:n], ents)
	}
	ls.ents = ents
	return ents, nil
}

// Offsets in struct linux_dirent64: d_ino 8 bytes, d_off 8, d_reclen 2,
// d_type 1, then the NUL-terminated name.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// parseDirents appends the entries in buf (getdents64's records),
// skipping "." and "..".
func parseDirents(dirfd int, buf []byte, ents []dirent) []dirent {
	for len(buf) >= direntName {
		reclen := int(binary.NativeEndian.Uint16(buf[direntReclen:]))
		if reclen < direntName || reclen > len(buf) {
			break // a malformed record: stop rather than misread
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		name := rec[direntName:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		e := dirent{name: string(name)}
		switch rec[direntType] {
		case unix.DT_REG:
		case unix.DT_DIR:
			e.typ = fs.ModeDir
		case unix.DT_LNK:
			e.typ = fs.ModeSymlink
		case unix.DT_UNKNOWN:
			e.typ = typeAt(dirfd, e.name)
		default:
			e.typ = fs.ModeIrregular
		}
		ents = append(ents, e)
	}
	return ents
}

// typeAt is the type of name in dirfd, a link not followed; an entry
// that cannot be looked up counts as irregular (skipped).
func typeAt(dirfd int, name string) fs.FileMode {
	var sb unix.Stat_t
	if unix.Fstatat(dirfd, name, &sb, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return fs.ModeIrregular
	}
	switch sb.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
