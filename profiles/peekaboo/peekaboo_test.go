package peekaboo

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/profiletest"
	"github.com/fsmcp/fsmcp/toolkit"
)

func TestToolSnapshots(t *testing.T) {
	profiletest.Snapshots(t, Table(), "__toolsnaps__")
}

// The golden exchanges, checked against MCP-RESPONSES.md and what the
// real server does (../shared/reference/seed-systems.md, 001).
func TestGolden(t *testing.T) {
	t.Setenv("PEEKABOO_RECURSIVE", "")
	t.Setenv("PEEKABOO_MAX_DEPTH", "")
	profiletest.Golden(t, []*toolkit.Table{Table()}, "testdata/*.txtar")
}

func TestLevels(t *testing.T) {
	for _, c := range []struct {
		recursive, depth string
		want             int
	}{
		{"", "", 11}, {"true", "10", 11}, {"false", "10", 1}, {"", "0", 1}, {"", "3", 4},
		{"", "2abc", 3}, {"", "abc", 1}, {"", "-1", 1}, {"", " 5", 6},
	} {
		env := map[string]string{"PEEKABOO_RECURSIVE": c.recursive, "PEEKABOO_MAX_DEPTH": c.depth}
		if got := Levels(func(k string) string { return env[k] }); got != c.want {
			t.Errorf("RECURSIVE=%q MAX_DEPTH=%q: %d levels, want %d", c.recursive, c.depth, got, c.want)
		}
	}
}

// peekaboo's own tests (search-utils.test.ts) and its translation rules.
func TestPathRegexp(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"*.ts", "/index.ts", true}, {"*.ts", "/src/main.ts", true}, {"*.ts", "/test.js", false},
		{"*.TS", "/src/main.ts", true}, {"**/*.json", "/package.json", true}, {"**/*.json", "/a/b/c.json", true},
		{"src/**/*.js", "/src/utils.js", true}, {"src/**/*.js", "/src/a/b/u.js", true}, {"src/**/*.js", "/x/src/u.js", false},
		{"src/*.js", "/src/a/u.js", false}, {"?.ts", "/a.ts", true}, {"?.ts", "/ab.ts", false},
		{"*.{js,ts}", "/a.ts", true}, {"{*.js,*.md}", "/a/b.md", true}, {"a.ts", "/axts", false}, {"src", "/src", true},
	} {
		re, err := pathRegexp(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		if got := re.MatchString(c.path); got != c.want {
			t.Errorf("%q on %q: %v, want %v (regexp %s)", c.pattern, c.path, got, c.want, re)
		}
	}
}

func TestIncludeRegexp(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"*.ts", "/src/a.ts", true}, {"*.ts", "/src/a.tsx", true}, {"*.ts", "/a.js", false},
		{"*.{md,ts}", "/a.MD", true}, {"src/*", "/src/a/b", true},
	} {
		re, err := includeRegexp(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := re.MatchString(c.path); got != c.want {
			t.Errorf("%q on %q: %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func TestMIME(t *testing.T) {
	for name, want := range map[string]string{
		"/src/index.ts": "application/typescript", "/a.TSX": "application/typescript", "/x.xyz": "text/plain",
		"/Makefile": "text/plain", "/.env": "text/plain", "/a.tar.gz": "application/gzip", "/p.PNG": "image/png",
	} {
		if got := mimeOf(name, false); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if got := mimeOf("/src", true); got != "inode/directory" {
		t.Errorf("directory: %s", got)
	}
}

// Directories carry their size and, when the listing went into them,
// hasChildren; files and the deepest level's directories have no
// hasChildren; anything not a directory is a "file".
func TestMetadata(t *testing.T) {
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{
		{URI: "file:///r/a.ts", Name: "/a.ts", Size: 3, Meta: mcp.Meta{"type": "file", "size": 3, "hasChildren": false}},
		{URI: "file:///r/l", Name: "/l", Meta: mcp.Meta{"type": "symlink", "size": 1, "hasChildren": false}},
		{URI: "file:///r/d", Name: "/d", Meta: mcp.Meta{"type": "directory", "size": 4096, "hasChildren": true}},
		{URI: "file:///r/d/e", Name: "/d/e", Meta: mcp.Meta{"type": "directory", "size": 4096, "hasChildren": false}},
		{URI: "file:///r/d/e/f", Name: "/d/e/f", Meta: mcp.Meta{"type": "directory", "size": 4096, "hasChildren": true}},
	}}
	raw, err := json.Marshal(withMetadata(res, 3))
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Resources json.RawMessage }
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	// The SDK's keys in its order, then metadata (a new object: its keys sorted).
	want := `[` +
		`{"name":"/a.ts","uri":"file:///r/a.ts","metadata":{"size":3,"type":"file"}},` +
		`{"name":"/l","uri":"file:///r/l","metadata":{"size":1,"type":"file"}},` +
		`{"name":"/d","uri":"file:///r/d","metadata":{"hasChildren":true,"size":4096,"type":"directory"}},` +
		`{"name":"/d/e","uri":"file:///r/d/e","metadata":{"hasChildren":false,"size":4096,"type":"directory"}},` +
		`{"name":"/d/e/f","uri":"file:///r/d/e/f","metadata":{"size":4096,"type":"directory"}}]`
	if string(got.Resources) != want {
		t.Errorf("got  %s\nwant %s", got.Resources, want)
	}
}
