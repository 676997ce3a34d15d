package files

import "github.com/fsmcp/fsmcp/sandbox"

// Write creates or replaces a file with data: atomically (a temporary file,
// then a rename), creating missing parent directories; an existing file
// keeps its permissions, a new one gets 0644.
func Write(p *sandbox.Path, data []byte) error { return p.WriteFile(data, 0o644) }
