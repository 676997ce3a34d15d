package sandbox

import (
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// statxMask is what StatAt asks the kernel for.
const statxMask = unix.STATX_BASIC_STATS | unix.STATX_BTIME

// StatAt describes name (one component, no slash; "." for dir itself) in
// the open directory dir without following a final symlink. On Linux it is
// statx(2), which also reports the birth time where the file system has it.
func StatAt(dir *os.File, name string, in *Info) error {
	rc, err := dir.SyscallConn()
	if err != nil {
		return err
	}
	var st unix.Statx_t
	var serr error
	err = rc.Control(func(fd uintptr) {
		for {
			serr = unix.Statx(int(fd), name, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_SYNC_AS_STAT, statxMask, &st)
			if serr != unix.EINTR {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	if serr != nil {
		return &fs.PathError{Op: "statx", Path: name, Err: serr}
	}
	*in = Info{
		Mode:  FileMode(uint32(st.Mode)),
		Size:  int64(st.Size),
		UID:   st.Uid,
		GID:   st.Gid,
		Nlink: st.Nlink,
		Inode: st.Ino,
		Atime: statxTime(st.Atime),
		Mtime: statxTime(st.Mtime),
		Ctime: statxTime(st.Ctime),
	}
	if st.Mask&unix.STATX_BTIME != 0 {
		in.Birth = statxTime(st.Btime)
	}
	return nil
}

func statxTime(t unix.StatxTimestamp) time.Time { return time.Unix(t.Sec, int64(t.Nsec)) }
