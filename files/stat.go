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
	MIME   string // StatMIME only
}

// Stat describes p, and reads nothing of it: what the directory entry
// and the inode say (so a file's or directory's access time stays as it
// was). A symlink is followed to its target, which must stay inside the
// root; both the link and the target are reported. MIME is left empty;
// StatMIME fills it in.
func Stat(p *sandbox.Path) (*StatInfo, error) {
	info, _, err := stat(p)
	return info, err
}

// StatMIME is Stat with the MIME type: inode/directory, or for a regular
// file what its first bytes say (it opens and reads them).
func StatMIME(p *sandbox.Path) (*StatInfo, error) {
	info, t, err := stat(p)
	if err != nil {
		return nil, err
	}
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

// stat is Stat, and the path it describes (p, or its link's target).
func stat(p *sandbox.Path) (*StatInfo, *sandbox.Path, error) {
	fi, err := p.Lstat()
	if err != nil {
		return nil, nil, err
	}
	info := &StatInfo{Abs: p.Abs}
	t := p
	if fi.Mode()&fs.ModeSymlink != 0 {
		if info.Link, err = p.Readlink(); err != nil {
			return nil, nil, err
		}
		if t, err = p.Target(); err != nil {
			return nil, nil, err
		}
		info.Target = t.Abs
	}
	st, err := t.Info()
	if err != nil {
		if t != p && errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fault.Errorf(fault.NotFound, p.Abs, "%s is a symlink to %s, which does not exist", p.Abs, info.Link)
		}
		return nil, nil, err
	}
	fillInfo(info, st)
	return info, t, nil
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
