package reference

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// patch is the unified diff the official server shows for an edit: the
// jsdiff createTwoFilesPatch format (an "Index:" line, a rule, "---" and
// "+++" headers labelled original and modified, hunks with four lines of
// context whose ranges always carry a count, "\ No newline at end of
// file" after a last line without one). go-difflib's SequenceMatcher
// (without its junk heuristic) pairs the lines: on repeated lines it picks
// the same pairing as jsdiff (the earliest match), which go-udiff's and
// gotextdiff's Myers variants do not (testdata/jsdiff-vectors.json).
func patch(name, before, after string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Index: %s\n%s\n--- %s\toriginal\n+++ %s\tmodified\n", name, strings.Repeat("=", 67), name, name)
	a, z := splitLines(before), splitLines(after)
	m := difflib.NewMatcherWithJunk(a, z, false, nil)
	for _, group := range m.GetGroupedOpCodes(4) {
		first, last := group[0], group[len(group)-1]
		oldStart, oldN := first.I1+1, last.I2-first.I1
		newStart, newN := first.J1+1, last.J2-first.J1
		if oldN == 0 {
			oldStart--
		}
		if newN == 0 {
			newStart--
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", oldStart, oldN, newStart, newN)
		for _, op := range group {
			if op.Tag == 'e' {
				writeLines(&b, " ", a[op.I1:op.I2])
				continue
			}
			if op.Tag == 'r' || op.Tag == 'd' {
				writeLines(&b, "-", a[op.I1:op.I2])
			}
			if op.Tag == 'r' || op.Tag == 'i' {
				writeLines(&b, "+", z[op.J1:op.J2])
			}
		}
	}
	return b.String()
}

// splitLines splits s into lines that keep their "\n" (the last may lack
// one), as jsdiff compares them.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func writeLines(b *strings.Builder, mark string, lines []string) {
	for _, l := range lines {
		b.WriteString(mark + strings.TrimSuffix(l, "\n") + "\n")
		if !strings.HasSuffix(l, "\n") {
			b.WriteString("\\ No newline at end of file\n")
		}
	}
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
