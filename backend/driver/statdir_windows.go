package driver

import (
	"time"

	"github.com/fsmcp/fsmcp/backend"
)

// statDir stats each path whole: Windows has no fstatat.
type statDir struct{}

func (d *statDir) open(dir string) error { return nil }

// regular reports path's modification time and size if it is a regular
// file (a symlink is not followed).
func (d *statDir) regular(path, rel string) (time.Time, int64, bool) {
	return backend.RegularAt(0, rel, path)
}

func (d *statDir) close() {}

// statCursor is statDir here.
type statCursor struct{ d *statDir }

func (d *statDir) cursor() *statCursor { return &statCursor{d} }

func (c *statCursor) regular(path, rel string) (time.Time, int64, bool) {
	return c.d.regular(path, rel)
}

func (c *statCursor) close() {}
