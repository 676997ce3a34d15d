package files

import (
	"context"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Write creates or replaces a file with data: atomically (a temporary file,
// then a rename), creating missing parent directories; an existing file
// keeps its permissions, a new one gets 0644. It takes the same locks as
// Modify, so it never lands inside another change's read-modify-write
// (which would then put the old content back), and a new file never
// replaces one another writer created meanwhile.
func Write(ctx context.Context, p *sandbox.Path, data []byte) error {
	return WriteWith(ctx, p, data, WriteOptions{MakeParents: true})
}

// WriteOptions are the policies a profile chooses for a write, decided
// here rather than checked by the profile beforehand.
type WriteOptions struct {
	MakeParents bool // missing parent directories are made, else a NoParentError
}

// WriteWith is Write with the policies spelled out.
func WriteWith(ctx context.Context, p *sandbox.Path, data []byte, o WriteOptions) error {
	return modify(ctx, p, 0, how{create: true, parents: o.MakeParents, noRead: true}, func([]byte) ([]byte, error) { return data, nil })
}
