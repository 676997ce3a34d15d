package toolkit

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCapResultCutsWholeLinesWithinMax pins the last guard of issue 20's
// item 4: it cut mid-line and its note came on top of the limit.
func TestCapResultCutsWholeLinesWithinMax(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, "entry %03d ünïcødé\n", i)
	}
	res := Text(b.String())
	capResult(res, AnswerBudget{Max: 2000})
	got := res.Content[0].(*mcp.TextContent).Text
	if n := utf8.RuneCountInString(got); n > 2000 {
		t.Errorf("%d characters, over the limit of 2000", n)
	}
	i := strings.Index(got, "... [output truncated")
	if i < 0 || got[i-1] != '\n' {
		t.Fatalf("no note after a whole line: %q", got)
	}
	kept := strings.Split(strings.TrimSuffix(got[:i], "\n"), "\n")
	last := kept[len(kept)-1]
	if last != fmt.Sprintf("entry %03d ünïcødé", len(kept)) {
		t.Errorf("last kept line %q is not whole", last)
	}
	if want := fmt.Sprintf("%d more lines", 500-len(kept)); !strings.Contains(got[i:], want) {
		t.Errorf("note %q, want %q", got[i:], want)
	}
}

// The official server mirrors its text as structuredContent {content};
// the cap cuts the mirror with the text, so reference needs no cap of its
// own and the two never disagree. Other structured values stay whole.
func TestCapResultCutsStructuredMirror(t *testing.T) {
	long := strings.Repeat("line of text\n", 400)
	res := Text(long)
	res.StructuredContent = map[string]any{"content": long, "items": []any{long, "short"}, "n": 3.0}
	capResult(res, AnswerBudget{Max: 1000})
	got := res.Content[0].(*mcp.TextContent).Text
	if utf8.RuneCountInString(got) > 1000 || !strings.Contains(got, "output truncated") {
		t.Fatalf("text not cut: %d characters", len(got))
	}
	sc := res.StructuredContent.(map[string]any)
	if sc["content"] != got || sc["items"].([]any)[0] != got || sc["items"].([]any)[1] != "short" || sc["n"] != 3.0 {
		t.Errorf("structured content %v", sc)
	}
}
