//go:build !linux

package journal

import (
	"context"
	"errors"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Flags records nothing here: inode flags are Linux's, and only a traced
// shell (Linux) reports their change.
func Flags(ctx context.Context, p *sandbox.Path, follow bool) error { return nil }

func setInodeFlags(p *sandbox.Path, v uint32) error {
	return errors.New("inode flags are set on Linux only")
}
