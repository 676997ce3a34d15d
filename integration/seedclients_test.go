package integration

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCatalogStandardClient: the catalog profile serves the go-sdk client
// over stdio and HTTP with catalog/create as a tool, its codes as protocol
// errors.
func TestCatalogStandardClient(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		cs := connect("--profile", "catalog", tr.root)
		if got := toolNames(t, cs); len(got) != 1 || got[0] != "catalog/create" {
			t.Fatalf("tools: %v", got)
		}
		out := filepath.Join(tr.root, "cat-"+strings.ReplaceAll(t.Name(), "/", "-")+".tsv")
		text := mustCall(t, cs, "catalog/create", map[string]any{"target_dir": tr.path("sub"), "output_file": out})
		if want := `{"status":"success","message":"Catalog created for ` + tr.path("sub") + `"}`; text != want {
			t.Errorf("got %s, want %s", text, want)
		}
		if !strings.HasPrefix(readFile(t, out), "Filename\tSize\tDate Modified\tDate Created\n") {
			t.Errorf("the catalog lacks the header")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "catalog/create", Arguments: map[string]any{"target_dir": tr.path("sub"), "output_file": out}})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != 1001 {
			t.Errorf("a second run: got %v, want code 1001", err)
		}
		tr.assertOutsideUntouched(t)
	})
}

// TestSeedProfilesTypeScriptClient: the official TypeScript SDK client can
// use both plain-wire profiles (the standard initialize answer, tools/list,
// tools/call), over stdio, and for the catalog over HTTP.
func TestSeedProfilesTypeScriptClient(t *testing.T) {
	node := tsNode(t)
	tr := newTree(t)
	m := modes(t)[0]
	data := filepath.Join(t.TempDir(), "data")
	cases := []struct {
		name, profile, transport string
		calls                    []tsCall
	}{
		{"catalog/stdio", "catalog", "stdio", []tsCall{
			{Name: "catalog/create", Arguments: map[string]any{"target_dir": tr.path("sub"), "output_file": tr.path("ts-stdio.tsv")}, want: `{"status":"success","message":"Catalog created for ` + tr.path("sub") + `"}`},
			{Name: "catalog/create", Arguments: map[string]any{"target_dir": tr.path("sub"), "output_file": tr.path("ts-stdio.tsv")}, want: "Output file already exists", wantError: true},
		}},
		{"catalog/http", "catalog", "http", []tsCall{
			{Name: "catalog/create", Arguments: map[string]any{"target_dir": tr.path("sub"), "output_file": tr.path("ts-http.tsv")}, want: `"status":"success"`},
		}},
	}
	cases = append(cases, struct {
		name, profile, transport string
		calls                    []tsCall
	}{"localcowork/stdio", "localcowork", "stdio", lcTools(tr.root, tr.outside)})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := map[string]any{"transport": c.transport, "calls": c.calls}
			if c.transport == "stdio" {
				plan["command"], plan["args"] = binary, []string{"--profile", c.profile, tr.root}
				plan["env"] = map[string]string{"PATH": m.path, "LOCALCOWORK_DATA_DIR": data}
			} else {
				url, _ := startHTTP(t, m, "--profile", c.profile, tr.root)
				plan["url"] = url
			}
			rep := runTS(t, node, plan)
			wantName := "fsmcp"
			if c.profile == "localcowork" {
				wantName = "filesystem" // the original's serverInfo
			}
			if rep.ServerInfo.Name != wantName {
				t.Errorf("serverInfo: %+v, want name %q", rep.ServerInfo, wantName)
			}
			for i, call := range c.calls {
				if i >= len(rep.Results) {
					t.Fatalf("no result for call %d", i)
				}
				r := rep.Results[i]
				if r.IsError != call.wantError || !strings.Contains(r.Text, call.want) {
					t.Errorf("call %d %s: got isError=%v %q, want isError=%v containing %q", i, call.Name, r.IsError, r.Text, call.wantError, call.want)
				}
			}
		})
	}
}

// lcTools is the TypeScript client's LocalCowork plan: every answer is
// content[0].text = the data's JSON; refusals are protocol errors.
var lcTools = func(root, outside string) []tsCall {
	f := filepath.Join(root, "ts-lc.txt")
	return []tsCall{
		{Name: "filesystem.write_file", Arguments: map[string]any{"path": f, "content": "from typescript"}, want: `{"success":true,"path":"` + f + `"}`},
		{Name: "filesystem.read_file", Arguments: map[string]any{"path": f}, want: `{"content":"from typescript","size":15}`},
		{Name: "filesystem.list_dir", Arguments: map[string]any{"path": root, "filter": "ts-lc*"}, want: `"name":"ts-lc.txt"`},
		{Name: "filesystem.search_files", Arguments: map[string]any{"path": root, "pattern": "ts-lc", "type": "file"}, want: `"type":"file"`},
		{Name: "filesystem.get_metadata", Arguments: map[string]any{"path": f}, want: `"category":"document","extension":".txt"`},
		{Name: "filesystem.delete_file", Arguments: map[string]any{"path": f}, want: `{"success":true}`},
		{Name: "filesystem.read_file", Arguments: map[string]any{"path": filepath.Join(outside, "secret.txt")}, want: "outside the sandboxed directories", wantError: true},
		{Name: "filesystem.read_file", Arguments: map[string]any{"path": filepath.Join(root, "link-out")}, want: "outside", wantError: true},
	}
}

// TestLocalCoworkStandardClient: the go-sdk client over stdio and HTTP
// sees the nine tools with their flags' annotations and gets the
// original's answers and codes.
func TestLocalCoworkStandardClient(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		cs := connect("--profile", "localcowork", tr.root)
		if got := toolNames(t, cs); len(got) != 9 {
			t.Fatalf("tools: %v", got)
		}
		text := mustCall(t, cs, "filesystem.read_file", map[string]any{"path": tr.path("a.txt")})
		if !strings.HasPrefix(text, `{"content":"`) || !strings.Contains(text, `"size":`) {
			t.Errorf("read_file: %s", text)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for path, code := range map[string]int64{tr.path("link-out"): -32001, filepath.Join(tr.outside, "secret.txt"): -32001} {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "filesystem.read_file", Arguments: map[string]any{"path": path}})
			var rpc *jsonrpc.Error
			if !errors.As(err, &rpc) || rpc.Code != code {
				t.Errorf("read %s: got %v, want code %d", path, err, code)
			}
		}
		// The go-sdk client takes the original's not-found code, -32003,
		// for its own "client is closing" and reports ErrConnectionClosed
		// (the message survives); the session itself goes on.
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "filesystem.read_file", Arguments: map[string]any{"path": tr.path("missing.txt")}})
		if err == nil || !strings.Contains(err.Error(), "Cannot read file: "+tr.path("missing.txt")) {
			t.Errorf("read a missing file: %v", err)
		}
		mustCall(t, cs, "filesystem.list_dir", map[string]any{"path": tr.root})
		tr.assertOutsideUntouched(t)
	})
}
