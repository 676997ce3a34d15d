//go:build !unix

package backend

// PathMax is 0 where no search is cut at a path length: Windows walks go
// by path with its own long-path rules.
const PathMax = 0

// ErrnoTooLong matches no "(os error N)".
const ErrnoTooLong = -1
