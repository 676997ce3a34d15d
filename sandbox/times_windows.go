package sandbox

import (
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// SetFileTimes sets the access and modification times of the open file
// f: the file itself, whatever its name leads to now.
func SetFileTimes(f *os.File, atime, mtime time.Time) error {
	a := windows.NsecToFiletime(atime.UnixNano())
	m := windows.NsecToFiletime(mtime.UnixNano())
	return windows.SetFileTime(windows.Handle(f.Fd()), nil, &a, &m)
}

// Lchtimes sets the times of p itself; a symlink's own times are left as
// they are on Windows.
func (p *Path) Lchtimes(atime, mtime time.Time) error {
	if fi, err := p.Lstat(); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil
	}
	return p.Chtimes(atime, mtime)
}
