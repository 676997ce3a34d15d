package integration

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The binary with --profile peekaboo, driven over stdio by an MCP client
// as peekaboo-mcp's clients drive it: serverInfo, the resource listing
// (PEEKABOO_MAX_DEPTH from the environment), reads by absolute and
// relative URI, both searches and peekaboo's error codes.
func TestPeekabooProfile(t *testing.T) {
	t.Setenv("PEEKABOO_RECURSIVE", "")
	t.Setenv("PEEKABOO_MAX_DEPTH", "1") // two levels: a/ and a/b/, not a/b/c.ts
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "index.ts"), "// TODO: one\n")
	write(t, filepath.Join(root, "a/b/c.ts"), "x\n// todo: deep\n")
	write(t, filepath.Join(root, "node_modules/m/i.js"), "// TODO in a module\n")
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			cs := connectStdio(t, m, "--profile", "peekaboo", root)
			ctx := context.Background()
			if info := cs.InitializeResult().ServerInfo; info.Name != "peekaboo-mcp" || info.Version != "1.0.0" {
				t.Errorf("serverInfo %+v", info)
			}
			if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || caps.Tools == nil {
				t.Errorf("capabilities %+v", caps)
			}
			list, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]*mcp.Resource{}
			for _, r := range list.Resources {
				got[r.Name] = r
			}
			if got["/a/b/c.ts"] != nil || got["/a/b"] == nil || got["/index.ts"] == nil {
				t.Fatalf("PEEKABOO_MAX_DEPTH=1 listing: %v", names(list.Resources))
			}
			if r := got["/index.ts"]; r.MIMEType != "application/typescript" || r.URI != "file://"+root+"/index.ts" {
				t.Errorf("/index.ts: %+v", r)
			}
			if r := got["/a"]; r.MIMEType != "inode/directory" {
				t.Errorf("/a: %+v", r)
			}
			for _, uri := range []string{got["/index.ts"].URI, "file://index.ts"} {
				res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				if err != nil || res.Contents[0].Text != "// TODO: one\n" || res.Contents[0].URI != uri {
					t.Errorf("read %s: %v", uri, err)
				}
			}
			wantCode(t, readErr(cs, "https://x/y"), -32600, "Only file:// URIs are supported")
			wantCode(t, readErr(cs, "file://../etc/passwd"), -32600, "Access denied: Path traversal attempt detected")
			wantCode(t, readErr(cs, "file://missing.txt"), -32001, "Failed to read file: File not found: "+root+"/missing.txt")

			if out := mustCall(t, cs, "search_path", map[string]any{"pattern": "*.ts"}); out != "Found 2 matches:\n/a/b/c.ts\n/index.ts" {
				t.Errorf("search_path: %q", out)
			}
			out := mustCall(t, cs, "search_content", map[string]any{"query": "todo", "include": "*.ts"})
			if !strings.HasPrefix(out, "Found matches in 2 files:\n\n") || !strings.Contains(out, "📄 /a/b/c.ts\n  Line 2: // todo: deep\n") ||
				!strings.Contains(out, "📄 /index.ts\n  Line 1: // TODO: one\n") {
				t.Errorf("search_content: %q", out)
			}
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_path", Arguments: map[string]any{}})
			wantCode(t, err, -32600, "Pattern is required")
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
			wantCode(t, err, -32601, "Unknown tool: nope")
		})
	}
}

func readErr(cs *mcp.ClientSession, uri string) error {
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	return err
}

func wantCode(t *testing.T, err error, code int64, msg string) {
	t.Helper()
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != code || rpc.Message != msg {
		t.Errorf("got %v, want %d %q", err, code, msg)
	}
}

func names(rs []*mcp.Resource) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}
