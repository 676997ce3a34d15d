package toolkit

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AnswerBudget is the most one tool answer may hold, its closing note included,
// and how it is counted: the one rule every profile's answers are cut by
// (the last guard, capResult, and fsmcp's formatters, which cut between
// whole lines, matches or paths and say where to page on). A call's
// budget is the server's --max-output in characters, or, for a client
// whose name and version tell a smaller limit of its own (hostLimits), that
// limit in that client's unit, so the answer reaches its model whole, with
// the same continuation notes, instead of being cut by the host.
type AnswerBudget struct {
	Max  int  // 0: no limit
	Unit Unit // what Max counts
	// By says what set it, for the last guard's note: "" for
	// --max-output.
	By string
}

// The rooms a cut answer keeps, within its budget, for the words after
// what was cut: every cap on an answer is the call's AnswerBudget less one of
// these.
const (
	// NoteRoom is kept by a tool that cuts its own answer between whole
	// entries (AnswerBudget.Entries), for the note that ends it, so the whole
	// answer, note included, stays within the limit a host passes whole
	// (Claude Code saves a longer one to a file and shows the model a 2 KB
	// preview, which loses the note). It holds the longest note and the
	// line naming ignored arguments (ReportExtra).
	NoteRoom = 600
	// guardNoteRoom is kept by the last guard (capResult) for its note.
	guardNoteRoom = 250
	// commandRoom is kept by a command whose output the shell cuts
	// (AnswerBudget.CommandOutput), for its notices and its exit code.
	commandRoom = 200
	// minCommandOutput is the least of a command's output shown, however
	// small the budget.
	minCommandOutput = 100
)

// Entries is what a tool's entries may take: the budget less NoteRoom;
// no limit stays no limit.
func (b AnswerBudget) Entries() AnswerBudget { return b.Less(NoteRoom) }

// FitLines is how many of lines, joined by newlines, fit in b (Max 0:
// all). The first line is always taken, so an answer is never empty; the
// last guard cuts one that alone is over.
func (b AnswerBudget) FitLines(lines []string) int {
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

// FitRendered is the largest k <= n whose rendering render(k) (the text
// of the first k entries) fits in b, at least 1 when n > 0, with that
// text: for answers whose entries are not one line each (grep's "--"
// between groups), so the formatter stays the one that decides the
// layout. Binary search: render(k) grows with k.
func (b AnswerBudget) FitRendered(n int, render func(k int) string) (int, string) {
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

// CommandOutput is how much of a command's output a shell started for
// this budget keeps (cutting the rest in the middle): def, or less when
// the budget, less room for the notices and the exit code, is smaller.
func (b AnswerBudget) CommandOutput(def int) int {
	if b.Max > 0 && b.Max-commandRoom < def {
		return max(b.Max-commandRoom, minCommandOutput)
	}
	return def
}

// Unit is what a budget counts.
type Unit int

const (
	// Characters are Unicode code points: --max-output's unit.
	Characters Unit = iota
	// UTF16 units are what a JavaScript host's string length counts: a
	// character outside the Basic Multilingual Plane is two.
	UTF16
	// Bytes are UTF-8 bytes: for a host that counts bytes or estimates
	// tokens from them, or whose unit is unknown (no text has fewer
	// bytes than characters or UTF-16 units).
	Bytes
)

// Len is s's size in the budget's unit.
func (b AnswerBudget) Len(s string) int {
	switch b.Unit {
	case Bytes:
		return len(s)
	case UTF16:
		n := 0
		for _, r := range s {
			n++
			if r > 0xFFFF {
				n++
			}
		}
		return n
	}
	return utf8.RuneCountInString(s)
}

// Less is the budget with n units kept back (for a note that follows the
// entries), at least 1 unit left; no limit stays no limit.
func (b AnswerBudget) Less(n int) AnswerBudget {
	if b.Max > 0 {
		b.Max = max(b.Max-n, 1)
	}
	return b
}

// String names the budget as the notes of cut answers do: "40000
// characters", "10000 bytes".
func (b AnswerBudget) String() string {
	unit := map[Unit]string{Characters: "characters", UTF16: "UTF-16 units", Bytes: "bytes"}[b.Unit]
	return strconv.Itoa(b.Max) + " " + unit
}

// source says what set the budget, for the last guard's note.
func (b AnswerBudget) source() string {
	if b.By == "" {
		return "--max-output"
	}
	return b.By
}

// prefix is the longest prefix of s, ending on a character boundary,
// whose size is at most n.
func (b AnswerBudget) prefix(s string, n int) string {
	used := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		w := 1
		switch {
		case b.Unit == Bytes:
			w = size // an invalid byte is one
		case b.Unit == UTF16 && r > 0xFFFF:
			w = 2
		}
		if used+w > n {
			return s[:i]
		}
		used += w
		i += size
	}
	return s
}

// hostLimit is a client known to cut a tool result shorter than fsmcp may
// answer, by the clientInfo name it sends and the versions it applies to.
type hostLimit struct {
	name string
	// from and before bound the versions (from <= v < before, compared
	// number by number); "" leaves that end open.
	from, before string
	max          int
	unit         Unit
	// title is the host as docs/clients.md names it; why says where the
	// figure comes from.
	title, why string
}

// hostLimits are the clients whose own limit is under what fsmcp may
// answer (docs/clients.md, "Answer size per host"). Each was read from the
// host at the version named, whose clientInfo was recorded there; it
// applies to every version until one is known to differ.
var hostLimits = []hostLimit{
	{name: "copilot-cli", max: 10000, unit: Bytes, title: "Copilot CLI",
		why: "Copilot CLI cuts an MCP tool result at 10 KiB, 10,240, before anything else sees it (github/copilot-cli#1732); its unit is not documented, so bytes, under that; clientInfo recorded from 1.0.102"},
	{name: "codex-mcp-client", max: 47900, unit: Bytes, title: "Codex",
		why: "Codex keeps a tool result of up to 48,000 bytes, its own Wall time line included, for every model it knows (10,000 tokens with a fifth more, counted as bytes / 4; measured with 0.171.0), and cuts the middle out of a longer one"},
	{name: "gemini-cli-mcp-client", max: 40000, unit: UTF16, title: "Gemini CLI",
		why: "Gemini CLI saves an MCP text longer than 40,000 (JavaScript length: UTF-16 units) to a file and shows the model its head and tail (truncateToolOutputThreshold, 0.61.0)"},
}

// BudgetFor is the budget of a call from client: --max-output characters,
// or, for a client hostLimits knows, the smaller of its own limit and
// --max-output, counted in the client's unit. Its unit never counts a
// text as fewer than characters, so an answer within the budget is
// within both. A client not known, or no client named, gets --max-output.
func (l Limits) BudgetFor(client *mcp.Implementation) AnswerBudget {
	b := AnswerBudget{Max: l.MaxOutput}
	if client == nil {
		return b
	}
	for _, h := range hostLimits {
		if h.name != client.Name || !versionIn(client.Version, h.from, h.before) {
			continue
		}
		if l.MaxOutput > 0 && l.MaxOutput < h.max {
			return AnswerBudget{Max: l.MaxOutput, Unit: h.unit, By: "--max-output, counted as " + h.title + " counts"}
		}
		return AnswerBudget{Max: h.max, Unit: h.unit, By: h.title + "'s own limit"}
	}
	return b
}

// versionIn reports whether v lies in [from, before), comparing dotted
// numbers one by one ("0.61.0" < "0.171.0"); an open end admits all.
func versionIn(v, from, before string) bool {
	return (from == "" || compareVersions(v, from) >= 0) && (before == "" || compareVersions(v, before) < 0)
}

// compareVersions compares dotted version numbers; a part that is not a
// number (a pre-release tag) counts as 0, and missing parts as 0.
func compareVersions(a, b string) int {
	pa, pb := versionParts(a), versionParts(b)
	for i := range max(len(pa), len(pb)) {
		var x, y int
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func versionParts(v string) []int {
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	var out []int
	for _, p := range strings.Split(v, ".") {
		n, _ := strconv.Atoi(p)
		out = append(out, n)
	}
	return out
}

// capAnswer gives the call its answer budget (--max-output, or the
// client's own limit: BudgetFor), which the handler sees in Call.Output,
// and cuts the answer to it.
func capAnswer(ctx context.Context, k *call, next func(context.Context)) {
	k.budget = k.env.Limits.BudgetFor(k.req.ClientInfo())
	next(ctx)
	capResult(k.res, k.budget)
}
