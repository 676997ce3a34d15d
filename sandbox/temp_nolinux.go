//go:build unix && !linux

package sandbox

import (
	"errors"
	"io/fs"
	"os"
)

var errNoUnnamed = errors.New("no unnamed files on this system")

// openUnnamed: only Linux has O_TMPFILE; CreateTemp makes a hidden name.
func openUnnamed(*os.File, fs.FileMode) (*os.File, error) { return nil, errNoUnnamed }

func linkUnnamed(_, _ *os.File, _ string) error { return errNoUnnamed }
