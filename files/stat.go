package files

import (
	"errors"
	"io/fs"
	"mime"
	"path"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// StatInfo is everything fs_stat reports about a path.
type StatInfo struct {
	Abs   string
	Type  Type
	Size  int64
	Mode  fs.FileMode
	UID   uint32
	GID   uint32
	Nlink uint32
	Inode uint64
	Atime time.Time
	Mtime time.Time
	Ctime time.Time
	Birth time.Time // zero where the file system does not record it
	// Link is a symlink's target text; the other fields then describe the
	// file it points to (which must be inside the root).
	Link   string
	Target string // the target's absolute path
	MIME   string
}

// Stat describes p. A symlink is followed to its target, which must stay
// inside the root; both the link and the target are reported.
func Stat(p *sandbox.Path) (*StatInfo, error) {
	fi, err := p.Lstat()
	if err != nil {
		return nil, err
	}
	info := &StatInfo{Abs: p.Abs}
	t := p
	if fi.Mode()&fs.ModeSymlink != 0 {
		if info.Link, err = p.Readlink(); err != nil {
			return nil, err
		}
		if t, err = p.Target(); err != nil {
			return nil, err
		}
		info.Target = t.Abs
	}
	st, err := t.Statx()
	if err != nil {
		if t != p && errors.Is(err, fs.ErrNotExist) {
			return nil, fault.Errorf(fault.NotFound, p.Abs, "%s is a symlink to %s, which does not exist", p.Abs, info.Link)
		}
		return nil, err
	}
	fillStatx(info, st)
	switch info.Type {
	case TypeDir:
		info.MIME = "inode/directory"
	case TypeFile:
		info.MIME = "application/octet-stream"
		if f, err := t.Open(); err == nil {
			if ci, err := Sniff(f, info.Size); err == nil {
				info.MIME = ci.MIME
			}
			f.Close()
		}
	}
	return info, nil
}

func fillStatx(info *StatInfo, st *unix.Statx_t) {
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		info.Type = TypeFile
	case unix.S_IFDIR:
		info.Type, mode = TypeDir, mode|fs.ModeDir
	case unix.S_IFLNK:
		info.Type, mode = TypeSymlink, mode|fs.ModeSymlink
	default:
		info.Type = TypeOther
	}
	if st.Mode&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	info.Mode = mode
	info.Size = int64(st.Size)
	info.UID, info.GID, info.Nlink, info.Inode = st.Uid, st.Gid, st.Nlink, st.Ino
	info.Atime = statxTime(st.Atime)
	info.Mtime = statxTime(st.Mtime)
	info.Ctime = statxTime(st.Ctime)
	if st.Mask&unix.STATX_BTIME != 0 {
		info.Birth = statxTime(st.Btime)
	}
}

func statxTime(t unix.StatxTimestamp) time.Time {
	return time.Unix(t.Sec, int64(t.Nsec))
}

// Times returns a file's modification time and its birth time, or its
// change time where the file system records no birth time.
func Times(st *unix.Statx_t) (mtime, created time.Time) {
	mtime = statxTime(st.Mtime)
	if st.Mask&unix.STATX_BTIME != 0 && st.Btime.Sec != 0 {
		return mtime, statxTime(st.Btime)
	}
	return mtime, statxTime(st.Ctime)
}

// MIMEOf guesses an entry's MIME type for listings: directories are
// inode/directory, a known extension decides, and otherwise the first
// bytes of the file are sniffed.
func MIMEOf(p *sandbox.Path, t Type) string {
	if t == TypeDir {
		return "inode/directory"
	}
	if m := mime.TypeByExtension(path.Ext(p.Rel)); m != "" {
		return m
	}
	f, err := p.Open()
	if err != nil {
		return "application/octet-stream"
	}
	defer f.Close()
	info, err := Sniff(f, 0)
	if err != nil {
		return "application/octet-stream"
	}
	return info.MIME
}
