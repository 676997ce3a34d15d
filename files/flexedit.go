package files

import (
	"context"
	"strings"
	"unicode"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// FlexEdit is one replacement for ApplyFlexEdits.
type FlexEdit struct{ Old, New string }

// ApplyFlexEdits applies edits in order to content, each on the result of
// the one before, the way the official MCP filesystem server does: line
// endings are made "\n" first; an edit replaces the first exact occurrence
// of Old; failing that, the first run of lines equal to Old's lines once
// leading and trailing white space is trimmed, written with the first
// matched line's indentation (later lines keep their indentation relative
// to Old's). An edit that matches nothing fails the whole call
// (fault.NotFound) and nothing is applied. It returns the content it
// started from (line endings made "\n") and the new content.
func ApplyFlexEdits(content string, edits []FlexEdit) (before, after string, err error) {
	return applyFlexEdits(content, edits, 0)
}

// applyFlexEdits is ApplyFlexEdits refusing, before it is built, a result
// over max bytes (max <= 0: no limit).
func applyFlexEdits(content string, edits []FlexEdit, max int64) (before, after string, err error) {
	before = toLF(content)
	after = before
	for _, e := range edits {
		old, repl := toLF(e.Old), toLF(e.New)
		if i := strings.Index(after, old); i >= 0 {
			if size := int64(len(after) - len(old) + len(repl)); max > 0 && size > max {
				return before, "", &ResultTooLargeError{Size: size, Max: max}
			}
			after = after[:i] + repl + after[i+len(old):]
			continue
		}
		var ok bool
		if after, ok, err = replaceLines(after, old, repl, max); err != nil {
			return before, "", err
		}
		if !ok {
			return before, "", fault.Errorf(fault.NotFound, "", "Could not find exact match for edit:\n%s", e.Old)
		}
	}
	return before, after, nil
}

// replaceLines is the white-space-flexible line match of ApplyFlexEdits.
// Each new line takes the matched line's indentation, so the result's
// size is added up before any line is built.
func replaceLines(content, old, repl string, limit int64) (string, bool, error) {
	oldLines := strings.Split(old, "\n")
	lines := strings.Split(content, "\n")
	for i := 0; i+len(oldLines) <= len(lines); i++ {
		match := true
		for j, ol := range oldLines {
			if jsTrim(ol) != jsTrim(lines[i+j]) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		indent := leadingSpace(lines[i])
		newLines := strings.Split(repl, "\n")
		// Each new line's indentation is decided (and the result's size
		// added up) before any line is built.
		pre := make([]int, len(newLines)) // -1: the line as it is; else spaces after indent
		size := int64(len(content) + len(repl) - (len(oldLines) - 1))
		for _, l := range lines[i : i+len(oldLines)] {
			size -= int64(len(l))
		}
		for j, nl := range newLines {
			pre[j] = -1
			if j == 0 {
				pre[j] = 0
			} else if j < len(oldLines) {
				oldIndent, newIndent := leadingSpace(oldLines[j]), leadingSpace(nl)
				if oldIndent != "" && newIndent != "" {
					pre[j] = max(0, len([]rune(newIndent))-len([]rune(oldIndent)))
				}
			}
			if pre[j] >= 0 {
				size += int64(len(indent)+pre[j]) - int64(len(leadingSpace(nl)))
			}
		}
		if limit > 0 && size > limit {
			return "", false, &ResultTooLargeError{Size: size, Max: limit}
		}
		for j, nl := range newLines {
			if pre[j] >= 0 {
				newLines[j] = indent + strings.Repeat(" ", pre[j]) + strings.TrimLeftFunc(nl, isJSSpace)
			}
		}
		out := append(append(append([]string{}, lines[:i]...), newLines...), lines[i+len(oldLines):]...)
		return strings.Join(out, "\n"), true, nil
	}
	return content, false, nil
}

// isJSSpace is JavaScript's white space (String.prototype.trim, \s).
func isJSSpace(r rune) bool { return r != '\u0085' && unicode.IsSpace(r) || r == '\uFEFF' }

func jsTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }

func leadingSpace(s string) string { return s[:len(s)-len(strings.TrimLeftFunc(s, isJSSpace))] }

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// FlexEditFile applies edits (ApplyFlexEdits) to a text file of at most
// maxSize bytes and, unless dryRun, writes the result back atomically
// (Modify). A file whose lines all ended "\r\n" keeps them. It returns the
// content before and after with "\n" line endings, which is what a diff
// shows. Errors: NotFound (the file, or an edit's text), Outside, IsDir,
// TooLarge, Binary.
func FlexEditFile(ctx context.Context, p *sandbox.Path, edits []FlexEdit, maxSize int64, dryRun bool) (before, after string, err error) {
	err = Modify(ctx, p, maxSize, func(data []byte) ([]byte, error) {
		if err := notBinary(data, p.Abs, "edit"); err != nil {
			return nil, err
		}
		var err error
		before, after, err = applyFlexEdits(string(data), edits, maxSize)
		if err != nil || dryRun {
			return data, err
		}
		if crlfOnly(string(data)) {
			return []byte(strings.ReplaceAll(after, "\n", "\r\n")), nil
		}
		return []byte(after), nil
	})
	return before, after, err
}

// crlfOnly reports whether s has line endings and every one is "\r\n".
func crlfOnly(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}
