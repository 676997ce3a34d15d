package files

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unsafe"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Edit is one literal replacement.
type Edit struct {
	Old, New   string
	ReplaceAll bool
}

// ApplyEdits applies edits in order to content. Each old string must occur
// exactly once unless ReplaceAll is set. In a file with CRLF line endings,
// "\n" in the strings is matched and written as "\r\n", so an edit keeps
// the file's line endings. It returns the new content and the number of
// replacements; on any error nothing is applied.
func ApplyEdits(content string, edits []Edit) (string, int, error) {
	out, n, err := applyEdits([]byte(content), edits, 0)
	return string(out), n, err
}

// applyEdits is ApplyEdits on bytes, refusing, before it is built, a
// result over max bytes (max <= 0: no limit). Each edit builds its result
// once, into a buffer of the exact size, and content is never changed: a
// file's edit holds the file and its result, no more.
func applyEdits(content []byte, edits []Edit, max int64) ([]byte, int, error) {
	if len(edits) == 0 {
		return nil, 0, fault.New(fault.Invalid, "no edits given")
	}
	crlf := bytes.Contains(content, []byte("\r\n"))
	total := 0
	for i, e := range edits {
		var err error
		var n int
		content, n, err = applyOne(content, e, crlf, max)
		if err != nil {
			if len(edits) > 1 {
				return nil, 0, fmt.Errorf("edit %d of %d: %w; no edit was applied", i+1, len(edits), err)
			}
			return nil, 0, err
		}
		total += n
	}
	return content, total, nil
}

func applyOne(content []byte, e Edit, crlf bool, max int64) ([]byte, int, error) {
	if e.Old == "" {
		return nil, 0, fault.New(fault.Invalid, "old_string must not be empty")
	}
	if e.Old == e.New {
		return nil, 0, fault.New(fault.Invalid, "old_string and new_string are identical; nothing would change")
	}
	old, repl := e.Old, e.New
	if crlf {
		if o := toCRLF(old); o != old && bytes.Contains(content, []byte(o)) {
			old, repl = o, toCRLF(repl)
		} else if !strings.Contains(old, "\n") {
			repl = toCRLF(repl)
		}
	}
	ob := []byte(old)
	n := bytes.Count(content, ob)
	switch {
	case n == 0:
		return nil, 0, fault.New(fault.NotFound, "old_string not found in file")
	case n > 1 && !e.ReplaceAll:
		return nil, 0, fault.Errorf(fault.NotUnique, "", "old_string found %d times. Use replace_all or provide more context to make it unique", n)
	}
	size := int64(len(content)) + int64(n)*(int64(len(repl))-int64(len(old)))
	if max > 0 && size > max {
		return nil, 0, &ResultTooLargeError{Size: size, Max: max}
	}
	if old == repl { // the same once line endings are matched: no change
		return content, n, nil
	}
	out := make([]byte, 0, size)
	for rest := content; ; {
		i := bytes.Index(rest, ob)
		if i < 0 {
			out = append(out, rest...)
			break
		}
		out = append(append(out, rest[:i]...), repl...)
		rest = rest[i+len(ob):]
	}
	return out, n, nil
}

// toCRLF writes every line ending as "\r\n".
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// EditFile applies edits to a text file of at most maxSize bytes, all or
// nothing, and writes it back atomically (Modify: nothing is lost to a
// concurrent change by any name or process). It returns the new and the
// old content and the number of replacements. With dryRun nothing is
// written. A result over maxSize is refused before it is built.
//
// The file is held once and its result built once (issue 25: a 200 MB
// edit peaked at 3-5x the file): the strings returned share the buffers
// read and written, which nothing changes afterwards.
func EditFile(ctx context.Context, p *sandbox.Path, edits []Edit, maxSize int64, dryRun bool) (newText, oldText string, n int, err error) {
	err = Modify(ctx, p, maxSize, func(old []byte) ([]byte, error) {
		if err := notBinary(old, p.Abs, "edit"); err != nil {
			return nil, err
		}
		oldText = bytesString(old)
		out, k, err := applyEdits(old, edits, maxSize)
		if err != nil {
			return old, err
		}
		newText, n = bytesString(out), k
		if dryRun {
			return old, nil
		}
		return out, nil
	})
	if err != nil {
		return "", oldText, 0, err
	}
	return newText, oldText, n, nil
}

// bytesString is b as a string without a copy; b must never change
// afterwards.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// notBinary refuses to change a file that is binary (isBinary).
func notBinary(data []byte, name, verb string) error {
	if isBinary(data) {
		return fault.Errorf(fault.Binary, name, "cannot %s %s: it is a binary file", verb, name)
	}
	return nil
}
