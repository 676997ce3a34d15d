package reference

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// patch is the unified diff the official server shows for an edit: the
// jsdiff createTwoFilesPatch format (an "Index:" line, a rule, "---" and
// "+++" headers labelled original and modified, hunks with four lines of
// context whose ranges always carry a count, "\ No newline at end of
// file" after a last line without one). go-udiff computes the hunks; the
// text around them is written here.
func patch(name, before, after string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Index: %s\n%s\n--- %s\toriginal\n+++ %s\tmodified\n", name, strings.Repeat("=", 67), name, name)
	u, err := udiff.ToUnifiedDiff(name, name, before, udiff.Strings(before, after), 4)
	if err != nil {
		return b.String()
	}
	oldLast, newLast := lastLine(before), lastLine(after)
	for _, h := range u.Hunks {
		var oldN, newN int
		for _, l := range h.Lines {
			if l.Kind != udiff.Insert {
				oldN++
			}
			if l.Kind != udiff.Delete {
				newN++
			}
		}
		oldStart, newStart := h.FromLine, h.ToLine
		if oldN == 0 {
			oldStart--
		}
		if newN == 0 {
			newStart--
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", oldStart, oldN, newStart, newN)
		oldAt, newAt := h.FromLine, h.ToLine
		for _, l := range h.Lines {
			text := strings.TrimSuffix(l.Content, "\n")
			mark := map[udiff.OpKind]string{udiff.Delete: "-", udiff.Insert: "+", udiff.Equal: " "}[l.Kind]
			b.WriteString(mark + text + "\n")
			noEOL := false
			if l.Kind != udiff.Insert {
				noEOL = noEOL || oldAt == oldLast && !strings.HasSuffix(before, "\n") && l.Kind == udiff.Delete
				oldAt++
			}
			if l.Kind != udiff.Delete {
				noEOL = noEOL || newAt == newLast && !strings.HasSuffix(after, "\n") && l.Kind == udiff.Insert
				newAt++
			}
			if l.Kind == udiff.Equal && oldAt-1 == oldLast && !strings.HasSuffix(before, "\n") {
				noEOL = true
			}
			if noEOL {
				b.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}

// lastLine is the number of s's last line (0 for "").
func lastLine(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// fenced wraps a diff in a ```diff block whose fence is longer than any
// run of backticks inside it, then a blank line, as the official server
// answers edit_file.
func fenced(diff string) string {
	n := 3
	for strings.Contains(diff, strings.Repeat("`", n)) {
		n++
	}
	fence := strings.Repeat("`", n)
	return fence + "diff\n" + diff + fence + "\n\n"
}
