package files

import (
	"io/fs"
	"os"

	"github.com/fsmcp/fsmcp/sandbox"
)

// flockFile is a no-op on Windows: edits are serialised within this
// process only (two fsmcp processes editing one file can still race).
func flockFile(*os.File) (unlock func(), err error) { return func() {}, nil }

// fileKey identifies the file by its resolved name below the root (Windows
// FileInfo carries no inode without another open).
func fileKey(_ fs.FileInfo, t *sandbox.Path) any { return t.Root.Path + "/" + t.Rel }
