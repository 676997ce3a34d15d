package files

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// chunk is how much a head or tail read takes at a time.
const chunk = 4096

// Head returns the first n lines of a text file, joined by "\n" (no
// newline after the last one), reading only as far as it needs and never
// more than limit bytes (limit <= 0: no limit). n <= 0 gives "". A line ending
// "\r\n" keeps its "\r". Errors: NotFound, Outside, IsDir, TooLarge.
func Head(p *sandbox.Path, n int, limit int64) (string, error) {
	if n <= 0 {
		return "", nil
	}
	f, _, err := openFile(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var buf []byte
	b := make([]byte, chunk)
	for bytes.Count(buf, []byte{'\n'}) < n {
		k, err := f.Read(b)
		buf = append(buf, b[:k]...)
		if limit > 0 && int64(len(buf)) > limit && bytes.Count(buf, []byte{'\n'}) < n {
			return "", &sandbox.TooLargeError{Path: p.Abs, Size: int64(len(buf)), Max: limit}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fault.Errorf(fault.Other, p.Abs, "reading %s: %v", p.Abs, sandbox.Cause(err))
		}
	}
	lines := strings.Split(string(buf), "\n")
	if strings.HasSuffix(string(buf), "\n") {
		lines = lines[:len(lines)-1] // no line after the last newline
	}
	return strings.Join(lines[:min(n, len(lines))], "\n"), nil
}

// Tail returns the last n pieces of a text file split at "\n", after
// "\r\n" became "\n": a file ending in a newline gives n-1 lines and that
// newline. It reads backwards only as far as it needs, at most limit bytes
// (limit <= 0: no limit). n <= 0 gives "". Errors: NotFound, Outside, IsDir,
// TooLarge.
func Tail(p *sandbox.Path, n int, limit int64) (string, error) {
	if n <= 0 {
		return "", nil
	}
	f, fi, err := openFile(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	pos := fi.Size()
	var buf []byte
	b := make([]byte, chunk)
	for pos > 0 && bytes.Count(buf, []byte{'\n'}) < n {
		k := int64(min(chunk, pos))
		pos -= k
		if _, err := f.ReadAt(b[:k], pos); err != nil && err != io.EOF {
			return "", fault.Errorf(fault.Other, p.Abs, "reading %s: %v", p.Abs, sandbox.Cause(err))
		}
		buf = append(append([]byte{}, b[:k]...), buf...)
		if limit > 0 && int64(len(buf)) > limit && pos > 0 && bytes.Count(buf, []byte{'\n'}) < n {
			return "", &sandbox.TooLargeError{Path: p.Abs, Size: fi.Size(), Max: limit}
		}
	}
	lines := strings.Split(strings.ReplaceAll(string(buf), "\r\n", "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n"), nil
}

// openFile opens p for Head and Tail, refusing a directory: the caller
// closes the file.
func openFile(p *sandbox.Path) (*os.File, fs.FileInfo, error) {
	f, err := p.Open()
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fault.Errorf(fault.Other, p.Abs, "reading %s: %v", p.Abs, sandbox.Cause(err))
	}
	if fi.IsDir() {
		f.Close()
		return nil, nil, fault.Errorf(fault.IsDir, p.Abs, "%s is a directory", p.Abs)
	}
	return f, fi, nil
}
