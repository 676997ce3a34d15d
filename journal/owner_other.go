//go:build !unix

package journal

import "io/fs"

// owner is unknown where files have no uid and gid.
func owner(fs.FileInfo) *[2]int { return nil }
