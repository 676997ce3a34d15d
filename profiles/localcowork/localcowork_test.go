package localcowork

import (
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/internal/test/profiletest"
	"github.com/fsmcp/fsmcp/toolkit"
)

func TestToolSnapshots(t *testing.T) {
	profiletest.Snapshots(t, Table(), "__toolsnaps__")
}

// The host's own wire (no params, string ids, calls before initialize,
// notifications) is pinned through the built binary in
// integration/testdata/seedwire; these are an MCP client's exchanges.
func TestGolden(t *testing.T) {
	profiletest.Golden(t, []*toolkit.Table{Table()}, "testdata/*.txtar")
}

func TestNodeExt(t *testing.T) {
	for in, want := range map[string]string{"/a/b.txt": ".txt", "/a/.bashrc": "", "/a/b": "", "/a/b.tar.gz": ".gz", "/a/b.": ".", "/a/..": "", "/a/.x.md": ".md"} {
		if got := nodeExt(in); got != want {
			t.Errorf("nodeExt(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCategoryAndPermissions(t *testing.T) {
	if got := category("/x/Report.PDF"); got != "document" {
		t.Errorf("category: %s", got)
	}
	if got := category("/x/a.unknown"); got != "other" {
		t.Errorf("category: %s", got)
	}
	if got := permissions(0o754); got != "rwxr-xr--" {
		t.Errorf("permissions: %s", got)
	}
}

func TestPatterns(t *testing.T) {
	cases := []struct {
		re   string
		name string
		want bool
	}{
		{"*.TXT", "a.txt", true},          // a glob: case-insensitive
		{"a?c", "xabcx", true},            // search globs are not anchored
		{"^rep[a-z]+x$", "REPORTX", true}, // a regular expression (no * or ?)
		{"a(b", "xa(by", true},            // not a valid expression: literal
		{"b.txt", "abctxt", true},         // a regular expression's dot
	}
	for _, c := range cases {
		if got := searchRegex(c.re).MatchString(c.name); got != c.want {
			t.Errorf("search %q on %q: %v", c.re, c.name, got)
		}
	}
	if nameGlob("*.md", true).MatchString("a.md.bak") {
		t.Errorf("a list filter is anchored")
	}
	if !nameGlob("*.MD", true).MatchString("notes.md") {
		t.Errorf("a list filter is case-insensitive")
	}
}

func TestEncodings(t *testing.T) {
	data := []byte("h\xe9llo")
	for enc, want := range map[string]string{"latin1": "héllo", "hex": "68e96c6c6f", "base64": "aOlsbG8="} {
		got, ok := decodeText(data, enc)
		if !ok || got != want {
			t.Errorf("decode %s: %q", enc, got)
		}
		back, ok := encodeText(got, enc)
		if !ok || string(back) != string(data) {
			t.Errorf("encode %s: %q", enc, back)
		}
	}
	if _, ok := decodeText(data, "klingon"); ok {
		t.Errorf("an unknown encoding was taken")
	}
	if got, _ := decodeText([]byte("ok"), "UTF-8"); got != "ok" {
		t.Errorf("utf-8: %q", got)
	}
}

// Recorded from the original (Node 20 fs.stat → toISOString) for files
// whose mtime was set with touch -d to these nanoseconds.
func TestModifiedIsNodesMillisecond(t *testing.T) {
	for ns, want := range map[int]string{
		122000001: "2026-01-02T03:04:10.122Z",
		122400000: "2026-01-02T03:04:10.122Z",
		122499999: "2026-01-02T03:04:10.123Z",
		122500000: "2026-01-02T03:04:10.123Z",
		122999999: "2026-01-02T03:04:10.123Z",
		123000000: "2026-01-02T03:04:10.123Z",
		999500000: "2026-01-02T03:04:11.000Z",
		1:         "2026-01-02T03:04:10.000Z",
	} {
		if got := isoTime(time.Date(2026, 1, 2, 3, 4, 10, ns, time.UTC)); got != want {
			t.Errorf("mtime .%09d: %s, want %s", ns, got, want)
		}
	}
}
