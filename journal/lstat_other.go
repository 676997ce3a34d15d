//go:build !linux && !darwin

package journal

import (
	"io/fs"

	"github.com/fsmcp/fsmcp/sandbox"
)

// dirCache stats through the root here (no fstatat on Windows).
type dirCache struct{}

func (c *dirCache) lstat(p *sandbox.Path) (fs.FileInfo, error) { return p.Lstat() }
func (c *dirCache) forget(*sandbox.Root, string)               {}
func (c *dirCache) holds(*sandbox.Root, string) bool           { return false }
func (c *dirCache) close()                                     {}
