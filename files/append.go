package files

import (
	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Append adds data at the end of a file, creating it (and its parents)
// when missing. The file is rewritten whole and atomically, so a reader
// never sees half an append and a failure changes nothing; the result
// must fit in maxSize bytes (0: no limit). Appends and edits of one path
// are serialised. Errors: Outside, IsDir, TooLarge.
func Append(p *sandbox.Path, data []byte, maxSize int64) error {
	unlock := lock(p.Abs)
	defer unlock()
	old, err := p.ReadFile(maxSize)
	if err != nil && fault.KindOf(err) != fault.NotFound {
		return err
	}
	if maxSize > 0 && int64(len(old)+len(data)) > maxSize {
		return &sandbox.TooLargeError{Path: p.Abs, Size: int64(len(old) + len(data)), Max: maxSize}
	}
	return p.WriteFile(append(old, data...), 0o644)
}
