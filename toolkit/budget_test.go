package toolkit

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Each unit counts text as its host does: code points, JavaScript's
// UTF-16 length (two for a character past the Basic Multilingual Plane),
// UTF-8 bytes; a prefix never splits a character and never passes n.
func TestBudgetUnits(t *testing.T) {
	s := "aé€😀b" // 1, 2, 3, 4, 1 bytes; 1, 1, 1, 2, 1 UTF-16 units
	for _, c := range []struct {
		unit  Unit
		len   int
		at5   string // the longest prefix within 5
		label string
	}{
		{Characters, 5, "aé€😀b", "5 characters"},
		{UTF16, 6, "aé€😀", "5 UTF-16 units"},
		{Bytes, 11, "aé", "5 bytes"},
	} {
		b := AnswerBudget{Max: 5, Unit: c.unit}
		if n := b.Len(s); n != c.len {
			t.Errorf("unit %d: Len = %d, want %d", c.unit, n, c.len)
		}
		if p := b.prefix(s, 5); p != c.at5 {
			t.Errorf("unit %d: prefix(5) = %q, want %q", c.unit, p, c.at5)
		}
		if b.String() != c.label {
			t.Errorf("unit %d: %q, want %q", c.unit, b.String(), c.label)
		}
	}
	// An invalid byte is one byte, and one character, as ranging yields it.
	if p := (AnswerBudget{Unit: Bytes}).prefix("a\xffb€", 3); p != "a\xffb" {
		t.Errorf("bytes prefix(3) over an invalid byte = %q", p)
	}
	if b := (AnswerBudget{Max: 100}).Less(600); b.Max != 1 {
		t.Errorf("Less past the budget leaves %d, want 1", b.Max)
	}
	if b := (AnswerBudget{}).Less(600); b.Max != 0 {
		t.Errorf("no limit less 600 is %d, want no limit", b.Max)
	}
}

// A client hostLimits knows (by name, within its versions) is held to its
// own limit, or to a smaller --max-output, counted in its unit; any other
// client keeps --max-output in characters.
func TestBudgetForClients(t *testing.T) {
	saved := hostLimits
	defer func() { hostLimits = saved }()
	hostLimits = append(hostLimits[:len(hostLimits):len(hostLimits)],
		hostLimit{name: "ranged", from: "1.2", before: "2.0.0", max: 500, unit: Bytes, title: "Ranged"})

	l := Limits{MaxOutput: 40000}
	copilot := AnswerBudget{Max: 10000, Unit: Bytes, By: "Copilot CLI's own limit"}
	for _, c := range []struct {
		client *mcp.Implementation
		max    int
		want   AnswerBudget
	}{
		{nil, 40000, AnswerBudget{Max: 40000}},
		{&mcp.Implementation{Name: "claude-code", Version: "2.1.332"}, 40000, AnswerBudget{Max: 40000}},
		{&mcp.Implementation{Name: "copilot-cli", Version: "1.0.102"}, 40000, copilot},
		{&mcp.Implementation{Name: "copilot-cli", Version: "1.0.102"}, 0, copilot},
		{&mcp.Implementation{Name: "copilot-cli", Version: "1.0.102"}, 5000, AnswerBudget{Max: 5000, Unit: Bytes, By: "--max-output, counted as Copilot CLI counts"}},
		{&mcp.Implementation{Name: "codex-mcp-client", Version: "0.171.0"}, 40000, AnswerBudget{Max: 40000, Unit: Bytes, By: "--max-output, counted as Codex counts"}},
		{&mcp.Implementation{Name: "codex-mcp-client", Version: "0.171.0"}, 100000, AnswerBudget{Max: 47900, Unit: Bytes, By: "Codex's own limit"}},
		{&mcp.Implementation{Name: "gemini-cli-mcp-client", Version: "0.61.0"}, 40000, AnswerBudget{Max: 40000, Unit: UTF16, By: "Gemini CLI's own limit"}},
		{&mcp.Implementation{Name: "gemini-cli-mcp-client", Version: "0.61.0"}, 30000, AnswerBudget{Max: 30000, Unit: UTF16, By: "--max-output, counted as Gemini CLI counts"}},
		{&mcp.Implementation{Name: "ranged", Version: "1.1.9"}, 40000, AnswerBudget{Max: 40000}},
		{&mcp.Implementation{Name: "ranged", Version: "1.2"}, 40000, AnswerBudget{Max: 500, Unit: Bytes, By: "Ranged's own limit"}},
		{&mcp.Implementation{Name: "ranged", Version: "1.10.0-beta"}, 40000, AnswerBudget{Max: 500, Unit: Bytes, By: "Ranged's own limit"}},
		{&mcp.Implementation{Name: "ranged", Version: "2.0.0"}, 40000, AnswerBudget{Max: 40000}},
	} {
		l.MaxOutput = c.max
		if got := l.BudgetFor(c.client); got != c.want {
			t.Errorf("--max-output %d, client %+v: %+v, want %+v", c.max, c.client, got, c.want)
		}
	}
}

// The last guard cuts to the budget in its unit: bytes for a host that
// counts bytes, so a non-ASCII answer that fits in characters is still
// cut, within the bytes, at a line's end, and the note names the host.
func TestCapResultCountsTheHostsUnit(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "γραμμή %03d: ελληνικό κείμενο\n", i) // 29 characters, 51 bytes
	}
	text := b.String()
	budget := AnswerBudget{Max: 10000, Unit: Bytes, By: "Copilot CLI's own limit"}
	res := Text(text)
	capResult(res, budget)
	got := res.Content[0].(*mcp.TextContent).Text
	if n := len(got); n > 10000 {
		t.Errorf("%d bytes, over the budget of 10000", n)
	}
	i := strings.Index(got, "... [output truncated")
	if i < 0 || !strings.HasPrefix(text, got[:i]) || got[i-1] != '\n' {
		t.Fatalf("not cut after a whole line of the text: %.200q", got)
	}
	if note := got[i:]; !strings.Contains(note, "to stay within 10000 bytes (Copilot CLI's own limit)") {
		t.Errorf("note %q does not name the host's limit", note)
	}
	whole := Text(text)
	capResult(whole, AnswerBudget{Max: 20000}) // 11,600 characters fit 20,000 characters
	if whole.Content[0].(*mcp.TextContent).Text != text {
		t.Error("an answer within the budget in characters was cut")
	}
}

// docs/clients.md's "Answer size per host" names every host limit the
// code holds, with its client name and figure.
func TestHostLimitsAreDocumented(t *testing.T) {
	raw, err := os.ReadFile("../docs/clients.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i := strings.Index(doc, "## Answer size per host")
	if i < 0 {
		t.Fatal(`docs/clients.md has no "## Answer size per host" section`)
	}
	doc = doc[i:]
	if j := strings.Index(doc[3:], "\n## "); j >= 0 {
		doc = doc[:j+3]
	}
	for _, h := range hostLimits {
		row := fmt.Sprintf("| %s | `%s` | %s |", h.title, h.name, AnswerBudget{Max: h.max, Unit: h.unit})
		if !strings.Contains(doc, row) {
			t.Errorf("docs/clients.md's answer-size table has no row starting %q", row)
		}
	}
}

// TestBudgetFits: the one budget's fitting rules — whole lines (the first
// always), whole rendered entries (at least one), a shell's output beside
// its notices — and no limit keeping everything.
func TestBudgetFits(t *testing.T) {
	b := AnswerBudget{Max: 9}
	lines := []string{"aaaa", "bbbb", "cccc"}
	if n := b.FitLines(lines); n != 2 { // "aaaa\nbbbb" is 9
		t.Errorf("FitLines = %d, want 2", n)
	}
	if n := (AnswerBudget{Max: 2}).FitLines(lines); n != 1 {
		t.Errorf("FitLines over the first line = %d, want 1 (never empty)", n)
	}
	if n := (AnswerBudget{}).FitLines(lines); n != 3 {
		t.Errorf("FitLines without a limit = %d, want 3", n)
	}
	render := func(k int) string { return strings.Repeat("xy", k) }
	if k, text := (AnswerBudget{Max: 5}).FitRendered(4, render); k != 2 || text != "xyxy" {
		t.Errorf("FitRendered = %d %q, want 2 xyxy", k, text)
	}
	if k, _ := (AnswerBudget{Max: 1}).FitRendered(4, render); k != 1 {
		t.Errorf("FitRendered under one entry = %d, want 1", k)
	}
	if got := (AnswerBudget{Max: 1000}).Entries(); got.Max != 1000-NoteRoom {
		t.Errorf("Entries = %d, want %d", got.Max, 1000-NoteRoom)
	}
	for _, c := range []struct{ max, def, want int }{
		{0, 5000, 5000}, {100000, 5000, 5000}, {1000, 5000, 800}, {150, 5000, 100},
	} {
		if got := (AnswerBudget{Max: c.max}).CommandOutput(c.def); got != c.want {
			t.Errorf("AnswerBudget{Max: %d}.CommandOutput(%d) = %d, want %d", c.max, c.def, got, c.want)
		}
	}
}
