//go:build !linux && !darwin

package journal

import (
	"errors"
	"os"

	"github.com/fsmcp/fsmcp/sandbox"
)

const (
	oNoFollow = 0
	oNonblock = 0
)

// errNoMove says this system moves nothing into the journal: contents
// are copied.
var errNoMove = errors.New("objects are copied into the journal on this system")

func (st *Step) linkInto(*sandbox.Path, string) error { return errNoMove }
func renameInto(*sandbox.Path, *Store, string) error  { return errNoMove }
func renameOut(*Store, string, *sandbox.Path) error   { return errNoMove }

func diskUsage(fi os.FileInfo) int64 { return fi.Size() }

// errCrossDevice never matches here: a rename error is the rename's.
var errCrossDevice = errors.New("cross-device rename")

// stillLinked is false here: the log is opened anew for each step.
func stillLinked(*os.File) bool { return false }
