package files

import (
	"context"
	"regexp"
	"strings"
	"unsafe"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Replacement replaces every match of Pattern.
type Replacement struct {
	Pattern *regexp.Regexp
	// With writes the text that takes the place of one match to w; m
	// holds the submatch byte offsets into content (as
	// FindAllStringSubmatchIndex gives them). nil replaces with nothing.
	With func(w *Builder, content string, m []int)
}

// Builder builds a result of at most Max bytes (Max <= 0: no limit):
// past it, writes are dropped and Over is set, so a replacement that
// would grow a file without bound is refused before it is built.
type Builder struct {
	b    strings.Builder
	Max  int64
	Over bool
	need int64 // bytes asked for, written or not
}

// WriteString adds s.
func (w *Builder) WriteString(s string) {
	w.need += int64(len(s))
	if w.Over || w.Max > 0 && w.need > w.Max {
		w.Over = true
		return
	}
	w.b.WriteString(s)
}

// WriteByte adds c.
func (w *Builder) WriteByte(c byte) error {
	w.WriteString(string(c))
	return nil
}

// ReplaceFile applies replacements in order to a text file of at most
// maxSize bytes, each to every match in the content the previous ones
// left, and writes the file back atomically (Modify) when it changed. A
// result over maxSize is refused before it is built. It returns the
// number of matches replaced and whether the content changed. Errors:
// NotFound, Outside, IsDir, TooLarge, Binary.
func ReplaceFile(ctx context.Context, p *sandbox.Path, reps []Replacement, maxSize int64) (n int, changed bool, err error) {
	err = Modify(ctx, p, maxSize, func(data []byte) ([]byte, error) {
		if err := notBinary(data, p.Abs, "replace in"); err != nil {
			return nil, err
		}
		n = 0
		content := bytesString(data) // data is not changed: no copy of the file
		for _, r := range reps {
			var count int
			var err error
			if content, count, err = replaceAll(content, r, maxSize); err != nil {
				return nil, err
			}
			n += count
		}
		changed = content != bytesString(data)
		return stringBytes(content), nil
	})
	if err != nil {
		return 0, false, err
	}
	return n, changed, nil
}

// stringBytes is s as bytes without a copy, for reading only.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func replaceAll(content string, r Replacement, max int64) (string, int, error) {
	ms := r.Pattern.FindAllStringSubmatchIndex(content, -1)
	if len(ms) == 0 {
		return content, 0, nil
	}
	w := &Builder{Max: max}
	w.b.Grow(len(content)) // most replacements keep the size: built once
	last := 0
	for _, m := range ms {
		w.WriteString(content[last:m[0]])
		if r.With != nil {
			r.With(w, content, m)
		}
		last = m[1]
	}
	w.WriteString(content[last:])
	if w.Over {
		// Past the limit the builder only counted: the size is exact and
		// nothing more was built.
		return "", 0, &ResultTooLargeError{Size: w.need, Max: max}
	}
	return w.b.String(), len(ms), nil
}
