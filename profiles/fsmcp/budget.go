package fsmcp

import (
	"sort"
	"unicode/utf8"

	"github.com/fsmcp/fsmcp/toolkit"
)

// noteRoom is the part of --max-output kept for the note that ends a cut
// answer, so the whole answer, note included, stays within the limit a
// host passes whole (Claude Code saves a longer one to a file and shows
// the model a 2 KB preview, which loses the note). It holds the longest
// note and the line naming ignored arguments (toolkit.ReportExtra).
const noteRoom = 600

// budget is the characters a tool's entries may take: --max-output less
// the room for its closing note; 0 means no limit.
func budget(c *toolkit.Call) int { return entryBudget(c.Limits.MaxOutput) }

// entryBudget is budget for an answer of at most maxOutput characters.
func entryBudget(maxOutput int) int {
	if maxOutput <= 0 {
		return 0
	}
	return max(maxOutput-noteRoom, 1)
}

// fitLines is how many of lines, joined by newlines, fit in budget
// characters (0: all). The first line is always taken, so an answer is
// never empty; the last guard cuts one that alone is over.
func fitLines(lines []string, budget int) int {
	if budget <= 0 {
		return len(lines)
	}
	used := 0
	for i, l := range lines {
		used += utf8.RuneCountInString(l)
		if i > 0 {
			used++ // the newline before it
		}
		if used > budget && i > 0 {
			return i
		}
	}
	return len(lines)
}

// fitRendered is the largest k <= n whose rendering render(k) (the text
// of the first k entries) fits in budget characters, at least 1 when n >
// 0, with that text: for answers whose entries are not one line each
// (grep's "--" between groups), so the formatter stays the one that
// decides the layout. Binary search: render(k) grows with k.
func fitRendered(n, budget int, render func(k int) string) (int, string) {
	all := render(n)
	if budget <= 0 || n <= 1 || utf8.RuneCountInString(all) <= budget {
		return n, all
	}
	k := sort.Search(n, func(k int) bool {
		return utf8.RuneCountInString(render(k+1)) > budget
	})
	k = max(k, 1)
	return k, render(k)
}
