//go:build !linux

package journal

import (
	"os"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Extended attributes are kept on Linux only (see xattr_linux.go).
func (c *dirCache) xattrs(p *sandbox.Path) (map[string][]byte, bool) { return nil, false }

// PutXattrs does nothing here: no attributes were kept.
func PutXattrs(f *os.File, want map[string][]byte) error { return nil }
