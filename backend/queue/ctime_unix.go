//go:build unix

package queue

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime is fi's change time (ctime): any write, truncation, new
// mode, owner or link moves it, and no program can set it back.
func changeTime(fi fs.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	sec, nsec := ctimeOf(st)
	return time.Unix(sec, nsec), true
}
