package files

import "io/fs"

// specialBits: Windows has no set-uid or set-gid bits to keep.
func specialBits(src, _ fs.FileInfo) fs.FileMode { return src.Mode() & fs.ModeSticky }
