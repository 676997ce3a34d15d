package reference_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles/reference"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

func newEnv(t *testing.T) *testenv.Env {
	return testenv.New(t, testenv.WithServer(func(c *server.Config) { c.Profiles = []*toolkit.Table{reference.Table()} }))
}

// TestSandboxRefusals: every SPEC §4 refusal holds through every tool of
// the profile — a prefix sibling, "..", a NUL byte, a symlink out (file and
// directory) and a dangling symlink out — and nothing outside is read,
// listed, written or created.
func TestSandboxRefusals(t *testing.T) {
	e := newEnv(t)
	sibling := e.Path("root_evil/x")
	dotdot := e.Root + "/../outside/secret"
	nul := e.Root + "/a.txt\x00x"
	fileOut := filepath.Join(e.Root, "filelink")
	dirOut := filepath.Join(e.Root, "dirlink")
	dangling := filepath.Join(e.Root, "dangling")
	edit := func(p string) map[string]any {
		return map[string]any{"path": p, "edits": []any{map[string]any{"oldText": "secret", "newText": "pwned"}}}
	}
	type call struct {
		tool string
		args map[string]any
	}
	var calls []call
	for _, p := range []string{sibling, dotdot, nul, fileOut, dirOut + "/secret"} {
		calls = append(calls,
			call{"read_text_file", map[string]any{"path": p}},
			call{"read_text_file", map[string]any{"path": p, "tail": 1}},
			call{"read_file", map[string]any{"path": p, "head": 1}},
			call{"read_media_file", map[string]any{"path": p}},
			call{"write_file", map[string]any{"path": p, "content": "pwned"}},
			call{"edit_file", edit(p)},
			call{"get_file_info", map[string]any{"path": p}},
			call{"move_file", map[string]any{"source": p, "destination": e.Root + "/stolen"}},
			call{"move_file", map[string]any{"source": e.Root + "/a.txt", "destination": p}},
		)
	}
	for _, p := range []string{filepath.Dir(sibling), e.Root + "/../outside", dirOut, dirOut + "/", e.Root + "\x00"} {
		for _, tool := range []string{"list_directory", "list_directory_with_sizes", "directory_tree", "create_directory"} {
			q := p
			if tool == "create_directory" {
				q += "/new"
			}
			calls = append(calls, call{tool, map[string]any{"path": q}})
		}
		calls = append(calls, call{"search_files", map[string]any{"path": p, "pattern": "**"}})
	}
	for _, tool := range []string{"write_file", "create_directory", "edit_file"} {
		args := map[string]any{"path": dangling, "content": "pwned"}
		if tool == "edit_file" {
			args = edit(dangling)
		}
		calls = append(calls, call{tool, args})
	}
	calls = append(calls, call{"move_file", map[string]any{"source": e.Root + "/sub/b.txt", "destination": dangling}})
	for _, c := range calls {
		res, err := e.Call(c.tool, c.args)
		if err != nil {
			t.Errorf("%s %q: protocol error %v", c.tool, c.args, err)
			continue
		}
		if txt := testenv.Text(res); !res.IsError || !strings.Contains(txt, "Access denied") {
			t.Errorf("%s %q = %v %q, want an Access denied refusal", c.tool, c.args, res.IsError, txt)
		}
	}
	// read_multiple_files refuses each path inline.
	txt := e.OK("read_multiple_files", map[string]any{"paths": []any{sibling, dotdot, fileOut}})
	if strings.Count(txt, "Access denied") != 3 || strings.Contains(txt, "secret\n") {
		t.Errorf("read_multiple_files = %q", txt)
	}
	// A search from the root never names what a link leads to.
	txt = e.OK("search_files", map[string]any{"path": e.Root, "pattern": "**"})
	if strings.Contains(txt, "secret") || strings.Contains(txt, "filelink") || strings.Contains(txt, "dirlink") || strings.Contains(txt, "dangling") || !strings.Contains(txt, "inlink") {
		t.Errorf("search_files from the root = %q", txt)
	}
	if got := e.Read("outside/secret"); got != "secret\n" {
		t.Errorf("outside/secret changed: %q", got)
	}
	if e.Exists("outside/created") || e.Exists("outside/new") || e.Exists("root_evil/new") {
		t.Error("something was created outside")
	}
}
