package files

import (
	"bytes"
	"context"
	"fmt"
	"strings"

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
	return applyEdits(content, edits, 0)
}

// applyEdits is ApplyEdits refusing, before it is built, a result over
// max bytes (max <= 0: no limit).
func applyEdits(content string, edits []Edit, max int64) (string, int, error) {
	if len(edits) == 0 {
		return "", 0, fault.New(fault.Invalid, "no edits given")
	}
	crlf := strings.Contains(content, "\r\n")
	total := 0
	for i, e := range edits {
		var err error
		var n int
		content, n, err = applyOne(content, e, crlf, max)
		if err != nil {
			if len(edits) > 1 {
				return "", 0, fmt.Errorf("edit %d of %d: %w; no edit was applied", i+1, len(edits), err)
			}
			return "", 0, err
		}
		total += n
	}
	return content, total, nil
}

func applyOne(content string, e Edit, crlf bool, max int64) (string, int, error) {
	if e.Old == "" {
		return "", 0, fault.New(fault.Invalid, "old_string must not be empty")
	}
	if e.Old == e.New {
		return "", 0, fault.New(fault.Invalid, "old_string and new_string are identical; nothing would change")
	}
	old, repl := e.Old, e.New
	if crlf {
		if o := toCRLF(old); o != old && strings.Contains(content, o) {
			old, repl = o, toCRLF(repl)
		} else if !strings.Contains(old, "\n") {
			repl = toCRLF(repl)
		}
	}
	n := strings.Count(content, old)
	switch {
	case n == 0:
		return "", 0, fault.New(fault.NotFound, "old_string not found in file")
	case n > 1 && !e.ReplaceAll:
		return "", 0, fault.Errorf(fault.NotUnique, "", "old_string found %d times. Use replace_all or provide more context to make it unique", n)
	}
	if size := int64(len(content)) + int64(n)*(int64(len(repl))-int64(len(old))); max > 0 && size > max {
		return "", 0, &ResultTooLargeError{Size: size, Max: max}
	}
	return strings.ReplaceAll(content, old, repl), n, nil
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
func EditFile(ctx context.Context, p *sandbox.Path, edits []Edit, maxSize int64, dryRun bool) (newText, oldText string, n int, err error) {
	err = Modify(ctx, p, maxSize, func(old []byte) ([]byte, error) {
		if err := notBinary(old, p.Abs, "edit"); err != nil {
			return nil, err
		}
		oldText = string(old)
		var err error
		newText, n, err = applyEdits(oldText, edits, maxSize)
		if err != nil || dryRun {
			return old, err
		}
		return []byte(newText), nil
	})
	if err != nil {
		return "", oldText, 0, err
	}
	return newText, oldText, n, nil
}

// notBinary refuses to change a file whose first block holds a NUL byte.
func notBinary(data []byte, name, verb string) error {
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		return fault.Errorf(fault.Binary, name, "cannot %s %s: it is a binary file", verb, name)
	}
	return nil
}
