package toolkit

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capResult is the last guard on the answer budget (--max-output, or the
// client's own limit): a tool that cuts its own output (with a hint how to
// page) stays under it; anything longer is cut here, at the end of a line
// when there is one, with a note saying how much was left out. A string of structuredContent that mirrors a cut text
// (the official server's {content: text}) is cut the same way, so the two
// still agree; images and other structured values are left whole, as
// image contents are.
func capResult(res *mcp.CallToolResult, b AnswerBudget) {
	if res == nil || b.Max <= 0 {
		return
	}
	var cut map[string]string // a cut text's whole form → its cut form
	left := b.Max
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		n := b.Len(tc.Text)
		if n <= left {
			left -= n
			continue
		}
		kept := b.prefix(tc.Text, left-guardNoteRoom) // the note stays within the budget
		if i := strings.LastIndexByte(kept, '\n'); i >= 0 {
			kept = kept[:i+1] // whole lines only
		}
		rest := tc.Text[len(kept):]
		lines := strings.Count(rest, "\n")
		if !strings.HasSuffix(rest, "\n") {
			lines++
		}
		if kept != "" && !strings.HasSuffix(kept, "\n") {
			kept += "\n" // one line longer than the limit: cut inside it
		}
		whole := tc.Text
		tc.Text = kept + fmt.Sprintf("... [output truncated: %d more lines (%d characters) left out to stay within %s (%s); narrow the request or page with offset/limit]",
			lines, utf8.RuneCountInString(rest), b, b.source())
		left = 0
		if cut == nil {
			cut = map[string]string{}
		}
		cut[whole] = tc.Text
	}
	if cut != nil {
		res.StructuredContent = capMirrors(res.StructuredContent, cut)
	}
}

// capMirrors replaces, in a structuredContent value, every string that is
// a cut text's whole form by its cut form.
func capMirrors(v any, cut map[string]string) any {
	switch v := v.(type) {
	case string:
		if c, ok := cut[v]; ok {
			return c
		}
	case map[string]any:
		for k, e := range v {
			v[k] = capMirrors(e, cut)
		}
	case []any:
		for i, e := range v {
			v[i] = capMirrors(e, cut)
		}
	}
	return v
}
