package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The binary with --profile filesystem-mcp, driven over stdio as its
// clients drive it: paths relative to the project root, batch answers,
// search_files through each search backend, its refusals.
func TestFilesystemMCPProfile(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			dir := filepath.Join(root, m.name)
			write(t, filepath.Join(dir, "top.txt"), "alpha\nneedle here\nomega\n")
			write(t, filepath.Join(dir, "src/deep.ts"), "const needle = 1;\n")
			write(t, filepath.Join(dir, "node_modules/m/i.js"), "needle\n")
			cs := connectStdio(t, m, "--profile", "filesystem-mcp", "--allowed-dir", dir)
			ctx := context.Background()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 12 {
				t.Fatalf("tools/list: %v %d", err, len(tools.Tools))
			}
			if out := mustCall(t, cs, "list_files", map[string]any{}); out != "[\n  \"node_modules/\",\n  \"src/\",\n  \"top.txt\"\n]" {
				t.Errorf("list_files: %q", out)
			}
			var hits []struct {
				File    string
				Line    int
				Match   string
				Context []string
			}
			if err := json.Unmarshal([]byte(mustCall(t, cs, "search_files", map[string]any{"regex": "needle"})), &hits); err != nil ||
				len(hits) != 1 || hits[0].File != "top.txt" || hits[0].Line != 2 || strings.Join(hits[0].Context, "|") != "alpha|needle here|omega|" {
				t.Errorf("search_files with the default pattern: %+v %v", hits, err)
			}
			if err := json.Unmarshal([]byte(mustCall(t, cs, "search_files", map[string]any{"regex": "needle", "file_pattern": "**/*.ts"})), &hits); err != nil ||
				len(hits) != 1 || hits[0].File != "src/deep.ts" || hits[0].Match != "needle" {
				t.Errorf("search_files **/*.ts: %+v %v", hits, err)
			}
			out := mustCall(t, cs, "write_content", map[string]any{"items": []map[string]any{{"path": "new/n.txt", "content": "x"}, {"path": "../escape.txt", "content": "x"}}})
			if !strings.Contains(out, `"operation": "written"`) || !strings.Contains(out, `"error": "MCP error -32600: Path traversal detected. Access denied."`) {
				t.Errorf("write_content: %s", out)
			}
			if _, err := os.Stat(filepath.Join(root, "escape.txt")); err == nil {
				t.Error("the escape was written")
			}
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_files", Arguments: map[string]any{"path": "/etc"}})
			wantCode(t, err, -32602, "Absolute paths are not allowed.")
		})
	}
}

// Nothing but JSON-RPC on stdout (the original logged its project root
// there).
func TestFilesystemMCPStdoutIsJSONRPC(t *testing.T) {
	cmd := exec.Command(binary, "--profile", "filesystem-mcp", t.TempDir())
	cmd.Stderr = io.Discard
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_files","arguments":{}}}`+"\n")
	in.Close()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", sc.Text())
		}
		n++
	}
	cmd.Wait()
	if n != 2 {
		t.Errorf("%d answers on stdout, want 2", n)
	}
}
