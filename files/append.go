package files

import (
	"context"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Append adds data at the end of a file, creating it (and its parents)
// when missing. The file is rewritten whole and atomically (Modify), so a
// reader never sees half an append, a failure changes nothing and a
// concurrent change by any name or process is kept; the result must fit
// in maxSize bytes (0: no limit), which is checked before it is built.
// Errors: Outside, IsDir, TooLarge.
func Append(ctx context.Context, p *sandbox.Path, data []byte, maxSize int64) error {
	return modify(ctx, p, maxSize, how{create: true, parents: true}, func(old []byte) ([]byte, error) {
		if size := int64(len(old) + len(data)); maxSize > 0 && size > maxSize {
			return nil, &ResultTooLargeError{Size: size, Max: maxSize}
		}
		return append(old, data...), nil
	})
}
