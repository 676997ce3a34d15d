//go:build !(linux || darwin)

package journal

import "github.com/fsmcp/fsmcp/sandbox"

// openRead opens the file p names for reading (no link followed).
func (c *dirCache) openRead(p *sandbox.Path) (readFile, error) { return p.OpenFile(oRead, 0) }
