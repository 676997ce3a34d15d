// Package files holds fsmcp's core file operations over sandboxed paths.
// Tools and profiles format their results; they do not touch files
// themselves.
package files

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// sniffLen is how much of a file decides text or binary: a NUL byte in the
// first block means binary, as ripgrep decides it.
const sniffLen = 8192

// Kind is what a file holds, as far as a reader cares.
type Kind int

const (
	Text Kind = iota
	Image
	Binary
)

// Info describes a file's content.
type Info struct {
	Kind Kind
	MIME string
	Size int64
}

// Sniff reads the start of r (which it leaves at an unknown offset) and
// classifies the content.
func Sniff(r io.Reader, size int64) (Info, error) {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return Info{}, err
	}
	return Classify(head[:n], size), nil
}

// isBinary is files' one binary rule: a NUL byte in the first sniffLen
// bytes of data. (Search keeps rg's own rule, backend.SearchableLen, for
// parity with rg.)
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0
}

// Classify decides from a file's first bytes.
func Classify(head []byte, size int64) Info {
	mime := mimetype.Detect(head).String()
	info := Info{Kind: Text, MIME: mime, Size: size}
	switch {
	case isImage(mime):
		info.Kind = Image
	case isBinary(head):
		info.Kind = Binary
	}
	return info
}

// isImage is true for the raster formats MCP clients display.
func isImage(mime string) bool {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp":
		return true
	}
	return false
}

// Lines is a window of a text file.
type Lines struct {
	Text  []string // the lines shown, without line endings
	First int      // 1-based number of Text[0]
	Total int      // lines in the whole file
	// AtLeast: the time limit ran out while the lines after the window
	// were being counted, so Total is a lower bound.
	AtLeast bool
	// Cut says the window stopped early because the shown text reached
	// the character budget; the next line to read is First+len(Text).
	Cut bool
	// LongLines counts lines shortened to the line limit.
	LongLines int
}

// TruncatedMark ends a line cut to the line limit.
const TruncatedMark = "... [truncated]"

// ReadLines returns up to limit lines starting at line offset (1-based),
// each cut to maxLine characters, stopping early once the shown text would
// pass maxChars (0: no budget). It reads the whole file once, so that Total
// is known, but holds only the window. A line is ended by "\n" or by the end
// of the file, wherever the reader's buffer happens to split it; a "\r"
// before the end is dropped.
func ReadLines(r io.Reader, offset, limit, maxLine, maxChars int) (Lines, error) {
	return ReadLinesContext(context.Background(), r, offset, limit, maxLine, maxChars)
}

// ctxEvery is how many bytes ReadLinesContext reads between looks at its
// context.
const ctxEvery = 64 << 10

// countPast bounds the bytes read after the window only to count lines
// for the total: the first page of a 1 GiB log need not read it all.
const countPast = 64 << 20

// ReadLinesContext is ReadLines that stops when ctx ends: with the window
// complete, it returns it with the lines counted so far (AtLeast); before
// that, a Timeout error. Past the window it counts lines for at most
// countPast more bytes; a longer rest makes the total "at least".
func ReadLinesContext(ctx context.Context, r io.Reader, offset, limit, maxLine, maxChars int) (Lines, error) {
	if offset < 1 {
		offset = 1
	}
	br := bufio.NewReaderSize(r, 64*1024)
	out := Lines{First: offset}
	var line []byte
	chars := 0
	n := 0
	pending := false // bytes of an unfinished line have been read
	unchecked := 0   // bytes read since ctx was last looked at
	past := 0        // bytes read after the window was complete
	for {
		frag, err := br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return out, err
		}
		if len(out.Text) >= limit || out.Cut {
			if past += len(frag); past > countPast {
				out.Total, out.AtLeast = n, true
				return out, nil
			}
		}
		if unchecked += len(frag); unchecked >= ctxEvery {
			unchecked = 0
			if ctx.Err() != nil {
				if len(out.Text) < limit && !out.Cut {
					return out, fault.Errorf(fault.Timeout, "", "stopped at line %d before the lines asked for: the time limit (--timeout) ran out", n+1)
				}
				out.Total, out.AtLeast = n, true
				return out, nil
			}
		}
		ended := err == nil
		if len(frag) > 0 {
			pending = true
		}
		if err == io.EOF && !pending {
			break
		}
		inWindow := n+1 >= offset && len(out.Text) < limit && !out.Cut
		if inWindow && len(line) <= 4*maxLine { // keep a little more than needed to count runes
			line = append(line, frag...)
		}
		if !ended && err != io.EOF {
			continue // ErrBufferFull: the line goes on
		}
		n++
		pending = false
		if inWindow {
			s := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
			if cut, ok := cutLine(s, maxLine); ok {
				s = cut + TruncatedMark
				out.LongLines++
			}
			// Characters, the fewest any answer budget counts a text as
			// (bytes and UTF-16 units are never fewer): the formatter
			// fits the window to its budget exactly.
			if n := utf8.RuneCountInString(s) + 1; maxChars > 0 && chars+n > maxChars && len(out.Text) > 0 {
				out.Cut = true
			} else {
				out.Text = append(out.Text, s)
				chars += n
			}
		}
		line = line[:0]
		if err == io.EOF {
			break
		}
	}
	out.Total = n
	return out, nil
}

// cutLine shortens s to max runes, reporting whether it did.
func cutLine(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	i := 0
	for j := range s {
		if i == max {
			return s[:j], true
		}
		i++
	}
	return s, false
}

// ReadText opens p, refuses directories and non-text content, and reads a
// window of lines.
func ReadText(p *sandbox.Path, offset, limit, maxLine, maxChars int) (Lines, Info, error) {
	return ReadTextContext(context.Background(), p, offset, limit, maxLine, maxChars)
}

// ReadTextContext is ReadText under ctx (ReadLinesContext).
func ReadTextContext(ctx context.Context, p *sandbox.Path, offset, limit, maxLine, maxChars int) (Lines, Info, error) {
	f, err := p.Open()
	if err != nil {
		return Lines{}, Info{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Lines{}, Info{}, err
	}
	if fi.IsDir() {
		return Lines{}, Info{}, fault.Errorf(fault.IsDir, p.Abs, "path is a directory, not a file: %s", p.Abs)
	}
	info, err := Sniff(f, fi.Size())
	if err != nil {
		return Lines{}, info, fmt.Errorf("reading %s: %v", p.Abs, err)
	}
	if info.Kind != Text {
		return Lines{}, info, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Lines{}, info, err
	}
	lines, err := ReadLinesContext(ctx, f, offset, limit, maxLine, maxChars)
	if err != nil {
		return lines, info, fmt.Errorf("reading %s: %v", p.Abs, err)
	}
	return lines, info, nil
}
