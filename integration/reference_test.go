package integration

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReferenceProfile runs the built binary as `fsmcp --profile reference
// DIR` — the official filesystem server's command line with fsmcp in its
// place — over stdio (the only transport the official server has), with rg
// on PATH and without, and drives it with the go-sdk client as a client of
// the official server would.
func TestReferenceProfile(t *testing.T) {
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			tr := newTree(t)
			cs := connectStdio(t, m, "--profile", "reference", tr.root)
			// The official server speaks protocols up to 2025-11-25, where
			// initialize names the server; on 2026-07-28 (server/discover)
			// the go-sdk names it and the table cannot.
			if init := cs.InitializeResult(); init.ProtocolVersion < "2026" && init.ServerInfo.Name != "secure-filesystem-server" {
				t.Errorf("serverInfo.name = %q", init.ServerInfo.Name)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
				if tool.OutputSchema == nil || tool.Annotations == nil {
					t.Errorf("%s lacks its outputSchema or annotations", tool.Name)
				}
			}
			want := []string{"create_directory", "directory_tree", "edit_file", "get_file_info", "list_allowed_directories", "list_directory",
				"list_directory_with_sizes", "move_file", "read_file", "read_media_file", "read_multiple_files", "read_text_file", "search_files", "write_file"}
			if !slices.Equal(names, want) {
				t.Errorf("tools = %v", names)
			}

			file := filepath.Join(tr.root, "ref.txt")
			if got := mustCall(t, cs, "write_file", map[string]any{"path": file, "content": "one\ntwo\nthree\n"}); got != "Successfully wrote to "+file {
				t.Errorf("write_file = %q", got)
			}
			if got := mustCall(t, cs, "read_text_file", map[string]any{"path": "ref.txt", "head": 2}); got != "one\ntwo" {
				t.Errorf("head = %q", got)
			}
			if got := mustCall(t, cs, "read_text_file", map[string]any{"path": file, "tail": 2}); got != "three\n" {
				t.Errorf("tail = %q", got)
			}
			diff := mustCall(t, cs, "edit_file", map[string]any{"path": file, "edits": []any{map[string]any{"oldText": "two", "newText": "2"}}})
			if !strings.HasPrefix(diff, "```diff\nIndex: "+file+"\n") || !strings.Contains(diff, "-two\n+2\n") {
				t.Errorf("edit_file = %q", diff)
			}
			if got := readFile(t, file); got != "one\n2\nthree\n" {
				t.Errorf("after the edit: %q", got)
			}
			mustFail(t, cs, "read_text_file", map[string]any{"path": file, "head": 1, "tail": 1}, "Cannot specify both head and tail parameters simultaneously")
			mustFail(t, cs, "read_text_file", map[string]any{"path": filepath.Join(tr.outside, "secret.txt")}, "Access denied - path outside allowed directories: ")
			mustFail(t, cs, "read_text_file", map[string]any{}, "MCP error -32602: Input validation error: Invalid arguments for tool read_text_file: Invalid input: expected string, received undefined at path")
			mustFail(t, cs, "no_such_tool", map[string]any{}, "MCP error -32602: Tool no_such_tool not found")
			mustFail(t, cs, "move_file", map[string]any{"source": file, "destination": filepath.Join(tr.root, "a.txt")}, "Destination already exists: ")

			found := mustCall(t, cs, "search_files", map[string]any{"path": tr.root, "pattern": "**/*.go"})
			if found != tr.path("b.go")+"\n"+tr.path("sub/c.go") {
				t.Errorf("search_files = %q", found)
			}
			var tree []map[string]any
			if err := json.Unmarshal([]byte(mustCall(t, cs, "directory_tree", map[string]any{"path": tr.path("sub")})), &tree); err != nil || len(tree) == 0 {
				t.Errorf("directory_tree: %v %v", tree, err)
			}
			if got := mustCall(t, cs, "list_directory_with_sizes", map[string]any{"path": tr.root, "sortBy": "size"}); !strings.Contains(got, "\nCombined size: ") {
				t.Errorf("list_directory_with_sizes = %q", got)
			}
			if got := mustCall(t, cs, "list_allowed_directories", map[string]any{}); got != "Allowed directories:\n"+tr.root {
				t.Errorf("list_allowed_directories = %q", got)
			}
			res, err := callRaw(cs, "read_media_file", map[string]any{"path": tr.path("a.txt")}, nil)
			if err != nil || res.IsError || res.StructuredContent == nil {
				t.Fatalf("read_media_file: %v %+v", err, res)
			}
			raw, _ := json.Marshal(res.StructuredContent)
			if !strings.Contains(string(raw), `"type":"resource"`) || !strings.Contains(string(raw), `"mimeType":"application/octet-stream"`) {
				t.Errorf("read_media_file structuredContent = %s", raw)
			}
		})
	}
}
