package sandbox

import (
	"io/fs"
	"path"
	"time"
)

// Info is what StatAt and Path.Info report: the fields fs.FileInfo does
// not carry portably (owner, links, inode, change and birth times).
type Info struct {
	Mode                       fs.FileMode // type and permission bits
	Size                       int64
	UID, GID, Nlink            uint32
	Inode                      uint64
	Atime, Mtime, Ctime, Birth time.Time // Birth is zero where not recorded
}

// Created is the birth time, or the change time where the file system
// records no birth time.
func (in *Info) Created() time.Time {
	if !in.Birth.IsZero() && in.Birth.Unix() != 0 {
		return in.Birth
	}
	return in.Ctime
}

// Info describes p without following a final symlink. It opens p's parent
// through the root and asks about one name in it, so it cannot leave the
// root.
func (p *Path) Info() (*Info, error) {
	dirRel, name := ".", "."
	if !p.IsRoot() {
		dirRel, name = path.Dir(p.Rel), path.Base(p.Rel)
	}
	dir, err := p.Root.fs.Open(dirRel)
	if err != nil {
		return nil, describe(p.Abs, err)
	}
	defer dir.Close()
	var in Info
	if err := StatAt(dir, name, &in); err != nil {
		return nil, describe(p.Abs, err)
	}
	return &in, nil
}
