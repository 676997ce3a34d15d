package backend

import (
	"bytes"
	"io"
	"math"
	"os"
)

// rgBufferSize is ripgrep's default line-buffer capacity. ripgrep reads a
// file in chunks of this size and, when a chunk holds a NUL byte, stops
// before searching that chunk: matches in earlier chunks stand, the rest
// of the file is skipped.
const rgBufferSize = 64 << 10

// SearchableLen returns how much of data a walked (not explicitly given)
// file contributes to a content search under ripgrep's binary rule:
// len(data) without a NUL byte, 0 when a NUL is in the first chunk (the
// file is binary), and otherwise the lines before the chunk holding the
// first NUL — replaying rg's buffer refills, which keep an incomplete last
// line and read into the remaining space.
func SearchableLen(data []byte) int {
	nul := bytes.IndexByte(data, 0)
	if nul < 0 {
		return len(data)
	}
	capacity := rgBufferSize
	off, lineStart := 0, 0 // bytes read; start of the unsearched partial line
	for {
		rolled := off - lineStart
		if rolled >= capacity {
			capacity *= 2
		}
		end := min(off+capacity-rolled, len(data))
		if nul < end {
			return lineStart
		}
		off = end
		lineStart = bytes.LastIndexByte(data[:off], '\n') + 1
	}
}

// MultilineSearchableLen is SearchableLen for a multiline search whose
// pattern can match a newline: ripgrep then searches the file whole, and
// looks for a NUL only in its first buffer. A NUL there makes the file
// binary (0: skipped); one later is searched through like any byte.
// (A multiline pattern that cannot match a newline is searched line by
// line, under SearchableLen.)
func MultilineSearchableLen(data []byte) int {
	if bytes.IndexByte(data[:min(len(data), rgBufferSize)], 0) >= 0 {
		return 0
	}
	return len(data)
}

// ExplicitBinaryData is the rule for a file named explicitly in a
// search's Paths, data being all of it: binary when it holds a NUL byte
// anywhere. rg would search such a file with NULs replaced; both
// backends skip it instead, so they agree.
func ExplicitBinaryData(data []byte) bool { return bytes.IndexByte(data, 0) >= 0 }

// ExplicitBinary is ExplicitBinaryData for an open file, read in blocks,
// so a huge file costs time, not memory.
func ExplicitBinary(f *os.File) bool {
	r := io.NewSectionReader(f, 0, math.MaxInt64) // leaves f's offset at 0
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if ExplicitBinaryData(buf[:n]) {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// ChunkSize is the least size of a chunk of a file, as the index splits
// files: each chunk ends at a line end (or the file's end), so a match
// outside multiline mode lies within one chunk.
const ChunkSize = 16 << 10

// ChunkEnd is the end (exclusive) of the chunk of data starting at from.
func ChunkEnd(data []byte, from int) int {
	if len(data)-from <= ChunkSize {
		return len(data)
	}
	if i := bytes.IndexByte(data[from+ChunkSize-1:], '\n'); i >= 0 {
		return from + ChunkSize + i
	}
	return len(data)
}
