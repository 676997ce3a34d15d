package reference_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles/reference"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

// get_file_info's lines are the official getFileStats keys, with dates in
// JavaScript's Date.toString form (not pinned by a golden: they change).
func TestFileInfo(t *testing.T) {
	e := newEnv(t)
	got := e.OK("get_file_info", map[string]any{"path": filepath.Join(e.Root, "a.txt")})
	date := `[A-Z][a-z]{2} [A-Z][a-z]{2} \d\d \d{4} \d\d:\d\d:\d\d GMT[+-]\d{4} \(.+\)`
	want := regexp.MustCompile(`^size: 6\ncreated: ` + date + `\nmodified: ` + date + `\naccessed: ` + date + `\nisDirectory: false\nisFile: true\npermissions: 644$`)
	if !want.MatchString(got) {
		t.Errorf("get_file_info = %q", got)
	}
	// A symlink is followed (fs.stat), inside the root.
	if got := e.OK("get_file_info", map[string]any{"path": filepath.Join(e.Root, "inlink")}); !regexp.MustCompile(`^size: 6\n`).MatchString(got) {
		t.Errorf("get_file_info of a link = %q", got)
	}
	e.Fails("get_file_info", map[string]any{"path": filepath.Join(e.Root, "none")}, "ENOENT: no such file or directory, stat '"+filepath.Join(e.Root, "none")+"'")
}

// Every tool answers with structuredContent {content}, as its
// outputSchema says.
func TestStructuredContentOnEveryTool(t *testing.T) {
	e := newEnv(t)
	a := filepath.Join(e.Root, "a.txt")
	calls := map[string]map[string]any{
		"read_file":                 {"path": a},
		"read_text_file":            {"path": a},
		"read_media_file":           {"path": a},
		"read_multiple_files":       {"paths": []any{a}},
		"write_file":                {"path": filepath.Join(e.Root, "w.txt"), "content": "w"},
		"edit_file":                 {"path": a, "edits": []any{map[string]any{"oldText": "hello", "newText": "hi"}}, "dryRun": true},
		"create_directory":          {"path": filepath.Join(e.Root, "newdir")},
		"list_directory":            {"path": e.Root},
		"list_directory_with_sizes": {"path": e.Root},
		"directory_tree":            {"path": e.Root},
		"move_file":                 {"source": filepath.Join(e.Root, "w.txt"), "destination": filepath.Join(e.Root, "w2.txt")},
		"search_files":              {"path": e.Root, "pattern": "*.txt"},
		"get_file_info":             {"path": a},
		"list_allowed_directories":  {},
	}
	for _, name := range []string{"write_file", "move_file"} { // move needs the written file
		checkStructured(t, e.CS, name, calls[name])
		delete(calls, name)
	}
	for name, args := range calls {
		checkStructured(t, e.CS, name, args)
	}
}

// A long answer is held to --max-output in its text and its
// structuredContent alike.
func TestMaxOutputCapsStructuredContent(t *testing.T) {
	e := testenv.New(t, testenv.WithLimits(func(l *toolkit.Limits) { l.MaxOutput = 200 }),
		testenv.WithServer(func(c *server.Config) { c.Profiles = []*toolkit.Table{reference.Table()} }))
	e.Write("root/big.txt", strings.Repeat("x", 5000))
	res, err := e.Call("read_text_file", map[string]any{"path": filepath.Join(e.Root, "big.txt")})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	txt := testenv.Text(res)
	sc := res.StructuredContent.(map[string]any)["content"].(string)
	if len(txt) > 200 || sc != txt || !strings.Contains(txt, "output truncated") {
		t.Errorf("text %d %q, structured %d", len(txt), txt, len(sc))
	}
}
