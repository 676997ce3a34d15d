package files

import (
	"errors"
	"io/fs"
	"mime"
	"path"
	"time"

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
	st, err := t.Info()
	if err != nil {
		if t != p && errors.Is(err, fs.ErrNotExist) {
			return nil, fault.Errorf(fault.NotFound, p.Abs, "%s is a symlink to %s, which does not exist", p.Abs, info.Link)
		}
		return nil, err
	}
	fillInfo(info, st)
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

func fillInfo(info *StatInfo, in *sandbox.Info) {
	switch in.Mode.Type() {
	case 0:
		info.Type = TypeFile
	case fs.ModeDir:
		info.Type = TypeDir
	case fs.ModeSymlink:
		info.Type = TypeSymlink
	default:
		info.Type = TypeOther
	}
	info.Mode = in.Mode & (fs.ModePerm | fs.ModeDir | fs.ModeSymlink | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	info.Size = in.Size
	info.UID, info.GID, info.Nlink, info.Inode = in.UID, in.GID, in.Nlink, in.Inode
	info.Atime, info.Mtime, info.Ctime, info.Birth = in.Atime, in.Mtime, in.Ctime, in.Birth
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
