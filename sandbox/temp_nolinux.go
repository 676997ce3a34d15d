//go:build unix && !linux

package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

var errNoUnnamed = errors.New("no unnamed files on this system")

// openUnnamed: only Linux has O_TMPFILE; CreateTemp makes a hidden name.
func openUnnamed(*os.File, fs.FileMode) (*os.File, error) { return nil, errNoUnnamed }

func linkUnnamed(_, _ *os.File, _ string) error { return errNoUnnamed }

// futimes sets f's times (to the microsecond: futimes).
func futimes(f *os.File, atime, mtime time.Time) error {
	tv := []unix.Timeval{unix.NsecToTimeval(atime.UnixNano()), unix.NsecToTimeval(mtime.UnixNano())}
	return unix.Futimes(int(f.Fd()), tv)
}
