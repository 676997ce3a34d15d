package journal

import "github.com/fsmcp/fsmcp/sandbox"

// SetBetweenLstatAndRead sets the hook run between a file's lstat and
// the read of its content, until the test ends.
func SetBetweenLstatAndRead(cleanup func(func()), fn func(*sandbox.Path)) {
	old := betweenLstatAndRead
	betweenLstatAndRead = fn
	cleanup(func() { betweenLstatAndRead = old })
}
