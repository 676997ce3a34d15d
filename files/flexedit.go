package files

import (
	"bytes"
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
	before = toLF(content)
	after = before
	for _, e := range edits {
		old, repl := toLF(e.Old), toLF(e.New)
		if i := strings.Index(after, old); i >= 0 {
			after = after[:i] + repl + after[i+len(old):]
			continue
		}
		var ok bool
		if after, ok = replaceLines(after, old, repl); !ok {
			return before, "", fault.Errorf(fault.NotFound, "", "Could not find exact match for edit:\n%s", e.Old)
		}
	}
	return before, after, nil
}

// replaceLines is the white-space-flexible line match of ApplyFlexEdits.
func replaceLines(content, old, repl string) (string, bool) {
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
		for j, nl := range newLines {
			if j == 0 {
				newLines[j] = indent + strings.TrimLeftFunc(nl, isJSSpace)
				continue
			}
			oldIndent := ""
			if j < len(oldLines) {
				oldIndent = leadingSpace(oldLines[j])
			}
			newIndent := leadingSpace(nl)
			if oldIndent != "" && newIndent != "" {
				rel := max(0, len([]rune(newIndent))-len([]rune(oldIndent)))
				newLines[j] = indent + strings.Repeat(" ", rel) + strings.TrimLeftFunc(nl, isJSSpace)
			}
		}
		out := append(append(append([]string{}, lines[:i]...), newLines...), lines[i+len(oldLines):]...)
		return strings.Join(out, "\n"), true
	}
	return content, false
}

// isJSSpace is JavaScript's white space (String.prototype.trim, \s).
func isJSSpace(r rune) bool { return r != '\u0085' && unicode.IsSpace(r) || r == '\uFEFF' }

func jsTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }

func leadingSpace(s string) string { return s[:len(s)-len(strings.TrimLeftFunc(s, isJSSpace))] }

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// FlexEditFile applies edits (ApplyFlexEdits) to a text file of at most
// maxSize bytes and, unless dryRun, writes the result back atomically. A
// file whose lines all ended "\r\n" keeps them. It returns the content
// before and after with "\n" line endings, which is what a diff shows.
// Errors: NotFound (the file, or an edit's text), Outside, IsDir,
// TooLarge, Binary.
func FlexEditFile(p *sandbox.Path, edits []FlexEdit, maxSize int64, dryRun bool) (before, after string, err error) {
	unlock := lock(p.Abs)
	defer unlock()
	data, err := p.ReadFile(maxSize)
	if err != nil {
		return "", "", err
	}
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		return "", "", fault.Errorf(fault.Binary, p.Abs, "cannot edit %s: it is a binary file", p.Abs)
	}
	before, after, err = ApplyFlexEdits(string(data), edits)
	if err != nil || dryRun {
		return before, after, err
	}
	out := after
	if crlfOnly(string(data)) {
		out = strings.ReplaceAll(after, "\n", "\r\n")
	}
	if err := p.WriteFile([]byte(out), 0o644); err != nil {
		return before, after, err
	}
	return before, after, nil
}

// crlfOnly reports whether s has line endings and every one is "\r\n".
func crlfOnly(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}
