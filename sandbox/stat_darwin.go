package sandbox

import (
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// StatAt describes name (one component, no slash; "." for dir itself) in
// the open directory dir without following a final symlink: fstatat(2),
// whose stat on macOS carries the birth time.
func StatAt(dir *os.File, name string, in *Info) error {
	rc, err := dir.SyscallConn()
	if err != nil {
		return err
	}
	var st unix.Stat_t
	var serr error
	err = rc.Control(func(fd uintptr) {
		for {
			serr = unix.Fstatat(int(fd), name, &st, unix.AT_SYMLINK_NOFOLLOW)
			if serr != unix.EINTR {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	if serr != nil {
		return &fs.PathError{Op: "fstatat", Path: name, Err: serr}
	}
	*in = Info{
		Mode:  FileMode(uint32(st.Mode)),
		Size:  st.Size,
		UID:   st.Uid,
		GID:   st.Gid,
		Nlink: uint32(st.Nlink),
		Inode: st.Ino,
		Atime: timespec(st.Atim),
		Mtime: timespec(st.Mtim),
		Ctime: timespec(st.Ctim),
		Birth: timespec(st.Btim),
	}
	return nil
}

func timespec(t unix.Timespec) time.Time { return time.Unix(t.Unix()) }
