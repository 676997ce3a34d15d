package filesystemmcp

import (
	"fmt"
	"time"

	"github.com/fsmcp/fsmcp/files"
)

// stats is the original's formatStats object, keys in its order.
type stats struct {
	Path           string `json:"path"`
	IsFile         bool   `json:"isFile"`
	IsDirectory    bool   `json:"isDirectory"`
	IsSymbolicLink bool   `json:"isSymbolicLink"`
	Size           int64  `json:"size"`
	Atime          string `json:"atime"`
	Mtime          string `json:"mtime"`
	Ctime          string `json:"ctime"`
	Birthtime      string `json:"birthtime"`
	Mode           string `json:"mode"`
	UID            uint32 `json:"uid"`
	GID            uint32 `json:"gid"`
}

// formatStats describes a stat as the original does: fs.stat follows
// symlinks, so a link shows its target (isSymbolicLink is false); times
// as JavaScript's toISOString; mode as three octal digits.
func formatStats(rel string, info *files.StatInfo) *stats {
	return &stats{
		Path:        slash(rel),
		IsFile:      info.Type == files.TypeFile,
		IsDirectory: info.Type == files.TypeDir,
		Size:        info.Size,
		Atime:       isoTime(info.Atime),
		Mtime:       isoTime(info.Mtime),
		Ctime:       isoTime(info.Ctime),
		Birthtime:   isoTime(info.Birth),
		Mode:        fmt.Sprintf("%03o", uint32(info.Mode.Perm())),
		UID:         info.UID,
		GID:         info.GID,
	}
}

// isoTime is Date.toISOString: UTC, milliseconds; an unknown time is the
// epoch, as Node reports a birth time the file system lacks.
func isoTime(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
