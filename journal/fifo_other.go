//go:build !linux

package journal

import (
	"errors"
	"io/fs"
	"os"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/sandbox"
)

// mkfifo is not done here: there is no mkfifoat to make a pipe relative
// to a directory's handle.
func mkfifo(p *sandbox.Path, _ os.FileMode) error {
	return errors.New("the named pipe " + escape.Name(p.Abs) + " is not brought back on this system")
}

// nodeOf: sockets and devices are not made again on this system.
func nodeOf(fs.FileInfo) (string, uint64) { return "", 0 }

func mknode(p *sandbox.Path, _ Image) error {
	return errors.New("a socket or device is not made again on this system")
}
