package backend

import (
	"fmt"
	"sync/atomic"
)

// Paths too long to open. rg opens every directory and file by its path
// relative to the search directory ("./" + the path below it), so one of
// PathMax bytes or more (with its NUL, more than the kernel takes) fails
// with ENAMETOOLONG and is skipped; nothing below a skipped directory is
// looked at. The native walker opens each entry relative to its parent
// and could go on, but skips and counts the same entries, so both
// backends give the same answer and the answer says what it left out.

// TooLong reports whether an entry whose path below the search directory
// (or fs_glob's base) is relLen bytes long is one rg cannot open.
func TooLong(relLen int) bool { return PathMax > 0 && relLen+len("./") >= PathMax }

// Skipped counts the entries a search skipped as TooLong. Safe for
// concurrent use; a nil *Skipped counts nothing.
type Skipped struct{ n atomic.Int64 }

// Add counts n entries.
func (s *Skipped) Add(n int64) {
	if s != nil && n != 0 {
		s.n.Add(n)
	}
}

// Count is the number counted so far.
func (s *Skipped) Count() int64 {
	if s == nil {
		return 0
	}
	return s.n.Load()
}

// SkippedNote is the line an answer ends with when n paths were skipped
// as TooLong ("" when none were).
func SkippedNote(n int64) string {
	if n <= 0 {
		return ""
	}
	paths := "paths were"
	if n == 1 {
		paths = "path was"
	}
	return fmt.Sprintf("(%d %s skipped: %d bytes or longer below the directory searched, too long to open by path (PATH_MAX %d))", n, paths, PathMax-len("./"), PathMax)
}
