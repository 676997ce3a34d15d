package native

import (
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
)

// TestParityLongLinesCutAt2000Characters: content lines are cut at 2000
// characters, with the same text and mark in both backends, whatever the
// line's length in bytes (multi-byte characters around the cut, a line of
// exactly 2000 and 2001 characters, one without a final newline), in
// matches and context lines.
func TestParityLongLinesCutAt2000Characters(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"ascii.txt":  strings.Repeat("a", 2500) + "foo" + strings.Repeat("b", 10) + "\nshort foo\n" + strings.Repeat("c", 3000) + "\n",
		"exact.txt":  strings.Repeat("d", 1997) + "foo\n" + strings.Repeat("e", 1998) + "foo\n",
		"utf8.txt":   strings.Repeat("é", 1500) + "foo\n" + strings.Repeat("n", 1999) + strings.Repeat("é", 5) + "foo\n",
		"noeol.txt":  "foo" + strings.Repeat("z", 5000),
		"manyfo.txt": strings.Repeat("foo ", 1000) + "\n",
	})
	runParity(t, root, []parityQuery{
		{name: "content", q: C(backend.GrepQuery{Pattern: "foo"})},
		{name: "content context", q: C(backend.GrepQuery{Pattern: "short", Before: 1, After: 1})},
		{name: "multiline", q: C(backend.GrepQuery{Pattern: `foo\n\w`, Multiline: true})},
	}, 0)
	got := grep(t, root, C(backend.GrepQuery{Pattern: "foo", Paths: []string{root + "/ascii.txt"}}))
	if want := "R/ascii.txt:1:" + strings.Repeat("a", 2000) + backend.LineCut; !strings.HasPrefix(got, want+"\n") {
		t.Errorf("a 2513-character line is not cut at 2000:\n%.100s", got)
	}
}
