package fsmcp

import (
	"sort"

	"github.com/fsmcp/fsmcp/toolkit"
)

// noteRoom is the part of the answer budget kept for the note that ends a
// cut answer, so the whole answer, note included, stays within the limit a
// host passes whole (Claude Code saves a longer one to a file and shows
// the model a 2 KB preview, which loses the note). It holds the longest
// note and the line naming ignored arguments (toolkit.ReportExtra).
const noteRoom = 600

// budget is what a tool's entries may take: the call's answer budget
// (--max-output, or the client's own limit: toolkit.Call.Output) less the
// room for its closing note; Max 0 means no limit.
func budget(c *toolkit.Call) toolkit.Budget { return entryBudget(c.Output) }

// entryBudget is budget for an answer of at most b.
func entryBudget(b toolkit.Budget) toolkit.Budget { return b.Less(noteRoom) }

// fitLines is how many of lines, joined by newlines, fit in b (Max 0: all).
// The first line is always taken, so an answer is never empty; the last
// guard cuts one that alone is over.
func fitLines(lines []string, b toolkit.Budget) int {
	if b.Max <= 0 {
		return len(lines)
	}
	used := 0
	for i, l := range lines {
		used += b.Len(l)
		if i > 0 {
			used++ // the newline before it
		}
		if used > b.Max && i > 0 {
			return i
		}
	}
	return len(lines)
}

// fitRendered is the largest k <= n whose rendering render(k) (the text
// of the first k entries) fits in b, at least 1 when n > 0, with that
// text: for answers whose entries are not one line each (grep's "--"
// between groups), so the formatter stays the one that decides the
// layout. Binary search: render(k) grows with k.
func fitRendered(n int, b toolkit.Budget, render func(k int) string) (int, string) {
	all := render(n)
	if b.Max <= 0 || n <= 1 || b.Len(all) <= b.Max {
		return n, all
	}
	k := sort.Search(n, func(k int) bool {
		return b.Len(render(k+1)) > b.Max
	})
	k = max(k, 1)
	return k, render(k)
}
