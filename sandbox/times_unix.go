//go:build unix

package sandbox

import (
	"os"
	"path"
	"time"

	"golang.org/x/sys/unix"
)

// SetFileTimes sets the access and modification times of the open file
// f: the file itself, whatever its name leads to now.
func SetFileTimes(f *os.File, atime, mtime time.Time) error { return futimes(f, atime, mtime) }

// Lchtimes sets the times of p itself, a symlink not followed.
func (p *Path) Lchtimes(atime, mtime time.Time) error {
	d, err := p.Root.fs.Open(path.Dir(p.Rel))
	if err != nil {
		return describe(p.Abs, err)
	}
	defer d.Close()
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	return describe(p.Abs, unix.UtimesNanoAt(int(d.Fd()), path.Base(p.Rel), ts, unix.AT_SYMLINK_NOFOLLOW))
}
