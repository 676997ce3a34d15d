//go:build !linux

package journal

import "github.com/fsmcp/fsmcp/sandbox"

// Extended attributes are kept on Linux only (see xattr_linux.go).
func (c *dirCache) xattrs(p *sandbox.Path, im *Image) (map[string][]byte, bool) { return nil, false }
