package backend

import (
	"strconv"
	"strings"

	"github.com/fsmcp/fsmcp/internal/escape"
)

// NoMatches is the text of an empty grep result.
const NoMatches = "No matches found."

// FormatOptions shape the text of a grep result.
type FormatOptions struct {
	// LineNumbers prints line numbers in Content mode (fs_grep -n).
	LineNumbers bool
	// Separators prints "--" between non-adjacent groups of lines in
	// Content mode, as rg does when context lines were asked for.
	Separators bool
	// NoPath leaves the path out of Count and Content entries ("3",
	// "1:text"), as rg does when it searches one file.
	NoPath bool
}

// Format renders r's entries the way rg prints them, one entry per line:
// FilesWithMatches "path"; Count "path:count"; Content "path:line:text"
// for matches and "path-line-text" for context lines (without line
// numbers "path:text" / "path-text"); paths with control characters
// are escaped (escape.Name). An empty result is NoMatches. No
// trailing newline; the caller adds any "(showing N of M)" note.
func Format(r *Result, o FormatOptions) string {
	if len(r.Entries) == 0 {
		if r.Total > 0 {
			return "" // offset past the end: the caller says so
		}
		return NoMatches
	}
	var b strings.Builder
	prevPath, prevLine := "", 0
	for i, e := range r.Entries {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch r.Mode {
		case FilesWithMatches:
			b.WriteString(escape.Name(e.Path))
		case Count:
			if !o.NoPath {
				b.WriteString(escape.Name(e.Path))
				b.WriteByte(':')
			}
			b.WriteString(strconv.Itoa(e.Count))
		case Content:
			if o.Separators && i > 0 && (e.Path != prevPath || e.Line != prevLine+1) {
				b.WriteString("--\n")
			}
			sep := byte(':')
			if e.Context {
				sep = '-'
			}
			if !o.NoPath {
				b.WriteString(escape.Name(e.Path))
				b.WriteByte(sep)
			}
			if o.LineNumbers {
				b.WriteString(strconv.Itoa(e.Line))
				b.WriteByte(sep)
			}
			b.Write(e.Text)
			prevPath, prevLine = e.Path, e.Line
		}
	}
	return b.String()
}
