//go:build !unix

package queue

import (
	"io/fs"
	"time"
)

// changeTime: no change time here (Windows); the modification time
// alone is checked.
func changeTime(fs.FileInfo) (time.Time, bool) { return time.Time{}, false }
