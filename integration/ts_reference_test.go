package integration

import (
	"path/filepath"
	"testing"
)

// TestTypeScriptClientReference drives `fsmcp --profile reference DIR` with
// the official TypeScript SDK client (ts/client.mjs), the client the
// official server's own tests use. The client lists the tools first, so it
// checks every structuredContent against the tool's outputSchema itself
// (read_media_file's array of content blocks included): a mismatch is a
// protocol error here.
func TestTypeScriptClientReference(t *testing.T) {
	node := tsNode(t)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			tr := newTree(t)
			file := filepath.Join(tr.root, "ts.txt")
			calls := []tsCall{
				{Name: "write_file", Arguments: map[string]any{"path": file, "content": "from\ntypescript\n"}, want: "Successfully wrote to " + file},
				{Name: "read_text_file", Arguments: map[string]any{"path": file, "tail": 2}, want: "typescript\n"},
				{Name: "read_file", Arguments: map[string]any{"path": file, "head": 1}, want: "from"},
				{Name: "edit_file", Arguments: map[string]any{"path": file, "edits": []any{map[string]any{"oldText": "typescript", "newText": "node"}}}, want: "-typescript\n+node\n"},
				{Name: "read_multiple_files", Arguments: map[string]any{"paths": []any{file, "missing.txt"}}, want: "\n---\nmissing.txt: Error - ENOENT"},
				{Name: "read_media_file", Arguments: map[string]any{"path": tr.path("a.txt")}, want: "[resource "},
				{Name: "create_directory", Arguments: map[string]any{"path": tr.path("made/deep")}, want: "Successfully created directory"},
				{Name: "list_directory", Arguments: map[string]any{"path": tr.path("sub")}, want: "[FILE] c.go"},
				{Name: "list_directory_with_sizes", Arguments: map[string]any{"path": tr.path("sub"), "sortBy": "size"}, want: "Combined size: "},
				{Name: "directory_tree", Arguments: map[string]any{"path": tr.path("sub/deeper")}, want: `"name": "d.md"`},
				{Name: "move_file", Arguments: map[string]any{"source": file, "destination": tr.path("moved.txt")}, want: "Successfully moved"},
				{Name: "search_files", Arguments: map[string]any{"path": tr.root, "pattern": "**/*.go"}, want: tr.path("sub/c.go")},
				{Name: "get_file_info", Arguments: map[string]any{"path": tr.path("moved.txt")}, want: "isFile: true"},
				{Name: "list_allowed_directories", Arguments: map[string]any{}, want: "Allowed directories:\n" + tr.root},
				{Name: "read_text_file", Arguments: map[string]any{"path": filepath.Join(tr.outside, "secret.txt")}, want: "Access denied - path outside allowed directories", wantError: true},
				{Name: "list_directory_with_sizes", Arguments: map[string]any{"path": tr.root, "sortBy": "date"}, want: `MCP error -32602: Input validation error: Invalid arguments for tool list_directory_with_sizes: Invalid option: expected one of "name"|"size" at sortBy`, wantError: true},
				{Name: "nope", Arguments: map[string]any{}, want: "MCP error -32602: Tool nope not found", wantError: true},
			}
			plan := map[string]any{"transport": "stdio", "calls": calls, "command": binary,
				"args": []string{"--profile", "reference", tr.root}, "env": map[string]string{"PATH": m.path}}
			rep := runTS(t, node, plan)
			if len(rep.Tools) != 14 || rep.ServerInfo.Name != "secure-filesystem-server" {
				t.Errorf("serverInfo %+v, tools %v", rep.ServerInfo, rep.Tools)
			}
			checkTS(t, calls, rep)
		})
	}
}
