//go:build !linux

package files

import (
	"os"

	"github.com/fsmcp/fsmcp/sandbox"
)

// renameIntoTrash has no handle-to-handle rename without replacing here:
// the caller copies into the trash and removes the file.
func renameIntoTrash(*sandbox.Path, *os.Root, string) (bool, error) { return false, nil }
