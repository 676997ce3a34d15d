package filesystemmcp_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles/filesystemmcp"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

// SPEC §4 through every filesystem-mcp tool: the prefix sibling, "..",
// NUL, an absolute path, a symlink out (file and directory) and a
// dangling link out are refused — as a protocol error or a failed item —
// and nothing outside the root is read, listed or changed.
func TestRefusals(t *testing.T) {
	e := testenv.New(t, testenv.WithServer(func(c *server.Config) {
		c.Profiles = []*toolkit.Table{filesystemmcp.Table()}
	}))
	secretInfo, _ := os.Stat(e.Path("outside/secret"))
	bad := []string{"../root_evil/x", "sub/../../outside/secret", "a\x00b", e.Path("outside/secret"),
		"filelink", "dirlink/secret", "dangling", "dirlink"}
	calls := func(p string) map[string]map[string]any {
		return map[string]map[string]any{
			"list_files":         {"path": p, "recursive": true, "include_stats": true},
			"stat_items":         {"paths": []string{p}},
			"read_content":       {"paths": []string{p}},
			"write_content":      {"items": []map[string]any{{"path": p, "content": "pwned"}, {"path": p, "content": "pwned", "append": true}}},
			"delete_items":       {"paths": []string{p + "/secret"}},
			"create_directories": {"paths": []string{p, p + "/new"}},
			"chmod_items":        {"paths": []string{p}, "mode": "777"},
			"chown_items":        {"paths": []string{p}, "uid": os.Getuid(), "gid": os.Getgid()},
			"move_items":         {"operations": []map[string]any{{"source": p + "/secret", "destination": "got"}, {"source": "a.txt", "destination": p + "/a.txt"}}},
			"copy_items":         {"operations": []map[string]any{{"source": p, "destination": "got"}, {"source": "a.txt", "destination": p + "/a.txt"}}},
			"search_files":       {"path": p, "regex": "secret|evil", "file_pattern": "**/*"},
			"replace_content":    {"paths": []string{p}, "operations": []map[string]any{{"search": "secret", "replace": "pwned"}}},
		}
	}
	for _, p := range bad {
		for tool, args := range calls(p) {
			res, err := e.CS.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil {
				continue // refused as a whole
			}
			text := testenv.Text(res)
			if strings.Contains(text, "secret\\n") || strings.Contains(text, "evil\\n") {
				t.Errorf("%s %q leaked: %s", tool, p, text)
			}
			if tool != "list_files" && tool != "search_files" && !strings.Contains(text, `"error"`) {
				t.Errorf("%s %q was not refused: %s", tool, p, text)
			}
		}
	}
	// The whole tree, listed and searched: nothing from outside.
	if out := e.OK("list_files", map[string]any{"recursive": true}); strings.Contains(out, "secret") {
		t.Errorf("list_files shows the outside: %s", out)
	}
	if out := e.OK("search_files", map[string]any{"regex": "secret|evil", "file_pattern": "**/*"}); out != "[]" {
		t.Errorf("search_files found outside text: %s", out)
	}
	if got := e.Read("outside/secret"); got != "secret\n" {
		t.Errorf("the secret changed: %q", got)
	}
	if got := e.Read("root_evil/x"); got != "evil\n" {
		t.Errorf("the prefix sibling changed: %q", got)
	}
	if fi, _ := os.Stat(e.Path("outside/secret")); fi.Mode() != secretInfo.Mode() {
		t.Errorf("the secret's mode changed to %v", fi.Mode())
	}
	for _, rel := range []string{"outside/created", "outside/new", "outside/a.txt", "root/got"} {
		if e.Exists(rel) {
			t.Errorf("%s was created", rel)
		}
	}
}
