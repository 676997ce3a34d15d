package profile

import (
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capResult is the last guard on --max-output: a tool that cuts its own
// output (with a hint how to page) stays under it; anything longer is cut
// here, with a note.
func capResult(res *mcp.CallToolResult, max int) {
	if res == nil || max <= 0 {
		return
	}
	left := max
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		n := utf8.RuneCountInString(tc.Text)
		if n <= left {
			left -= n
			continue
		}
		tc.Text = cutRunes(tc.Text, left) + fmt.Sprintf("\n... [output truncated: %d more characters; the limit is %d (--max-output), narrow the request or page with offset/limit]", n-left, max)
		left = 0
	}
}

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
