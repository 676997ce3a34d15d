package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// clientsNode is the node binary for the pinned clients in clients/; it
// skips the test where node or those clients (`make clients`) are missing.
func clientsNode(t *testing.T) string {
	t.Helper()
	return nodeWith(t, "clients/node_modules/.package-lock.json",
		"the Inspector, mcp-remote and old TypeScript SDK checks", "`make clients` (npm ci --prefix integration/clients)")
}

// caseCalls write a file and find it again with fs_grep's dashed -i
// parameter, which a client must pass through by name.
func caseCalls(tr *tree, name string) ([]tsCall, string) {
	file := filepath.Join(tr.root, name)
	return []tsCall{
		{Name: "fs_write", Arguments: map[string]any{"file_path": file, "content": "Shout NEEDLECASE\n"}, want: "Wrote 17 bytes"},
		{Name: "fs_grep", Arguments: map[string]any{"pattern": "needlecase", "-i": true, "output_mode": "content"}, want: file + ":1:Shout NEEDLECASE"},
		{Name: "fs_read", Arguments: map[string]any{"file_path": filepath.Join(tr.outside, "secret.txt")}, want: "outside allowed directories", wantError: true},
	}, file
}

// checkReport fails the test unless the report names fsmcp, lists its
// tools and gives each call what it wants.
func checkReport(t *testing.T, calls []tsCall, rep tsReport) {
	t.Helper()
	if rep.ServerInfo.Name != "fsmcp" {
		t.Errorf("serverInfo = %+v", rep.ServerInfo)
	}
	for _, name := range []string{"fs_read", "fs_write", "fs_grep"} {
		if !slices.Contains(rep.Tools, name) {
			t.Errorf("tools/list lacks %s: %v", name, rep.Tools)
		}
	}
	checkTS(t, calls, rep)
}

// TestOldClients: TypeScript SDK 1.0 (stdio only) and 1.10 (stdio and
// Streamable HTTP, with the bearer token) connect, list tools and call them.
func TestOldClients(t *testing.T) {
	node := clientsNode(t)
	tr := newTree(t)
	m := modes(t)[0]
	for _, c := range []struct{ sdk, transport string }{{"sdk-1.0", "stdio"}, {"sdk-1.10", "stdio"}, {"sdk-1.10", "http"}} {
		t.Run(c.sdk+"/"+c.transport, func(t *testing.T) {
			calls, _ := caseCalls(tr, c.sdk+"-"+c.transport+".txt")
			plan := map[string]any{"sdk": c.sdk, "transport": c.transport, "calls": calls}
			if c.transport == "stdio" {
				plan["command"], plan["args"] = binary, []string{tr.root}
				plan["env"] = map[string]string{"PATH": m.path}
			} else {
				url, _ := startHTTP(t, m, "--auth-token", "old-sdk-token", tr.root)
				plan["url"], plan["headers"] = url, map[string]string{"Authorization": "Bearer old-sdk-token"}
			}
			checkReport(t, calls, runNodeClient(t, node, "clients/client.mjs", plan))
		})
	}
}

// TestMCPRemote: mcp-remote bridges a stdio-only client to fsmcp over
// Streamable HTTP with the bearer header, written as the README says
// (the token from the environment), with and without its server/discover
// probe (--protocol auto).
func TestMCPRemote(t *testing.T) {
	node := clientsNode(t)
	tr := newTree(t)
	m := modes(t)[0]
	for _, protocol := range []string{"legacy", "auto"} {
		t.Run(protocol, func(t *testing.T) {
			url, _ := startHTTP(t, m, "--auth-token", "remote-token", tr.root)
			calls, _ := caseCalls(tr, "remote-"+protocol+".txt")
			plan := map[string]any{"sdk": "sdk-1.10", "transport": "stdio", "calls": calls,
				"command": node,
				"args": []string{"clients/node_modules/mcp-remote/dist/proxy.js", url,
					"--header", "Authorization: Bearer ${TOKEN}", "--protocol", protocol},
				// mcp-remote keeps OAuth state under HOME; none is made here.
				"env": map[string]string{"PATH": m.path, "HOME": t.TempDir(), "TOKEN": "remote-token"}}
			checkReport(t, calls, runNodeClient(t, node, "clients/client.mjs", plan))
		})
	}
}

// TestInspectorCLI: the MCP Inspector's CLI lists fsmcp's tools and calls
// fs_grep with its dashed -i parameter through --tool-arg, over stdio (the
// README's line) and over Streamable HTTP with the bearer header.
func TestInspectorCLI(t *testing.T) {
	node := clientsNode(t)
	tr := newTree(t)
	m := modes(t)[0]
	write(t, filepath.Join(tr.root, "inspector.txt"), "Shout NEEDLECASE\n")
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			target := []string{binary, tr.root}
			if transport == "http" {
				url, _ := startHTTP(t, m, "--auth-token", "inspector-token", tr.root)
				target = []string{url, "--transport", "http", "--header", "Authorization: Bearer inspector-token"}
			}
			inspector := func(args ...string) []byte {
				t.Helper()
				args = append(append([]string{"clients/node_modules/.bin/inspector", "--cli"}, target...), args...)
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // only bounds a hang
				defer cancel()
				cmd := exec.CommandContext(ctx, node, args...)
				cmd.Env = append(os.Environ(), "PATH="+m.path, "HOME="+t.TempDir())
				cmd.Stderr = &testLog{t: t, prefix: "inspector: "}
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("inspector %v: %v\n%s", args[2:], err, out)
				}
				return out
			}
			var list struct{ Tools []struct{ Name string } }
			if err := json.Unmarshal(inspector("--method", "tools/list"), &list); err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if !slices.ContainsFunc(list.Tools, func(tl struct{ Name string }) bool { return tl.Name == "fs_grep" }) {
				t.Fatalf("tools/list lacks fs_grep: %+v", list.Tools)
			}
			grep := func(args ...string) (text string, isError bool) {
				t.Helper()
				base := []string{"--method", "tools/call", "--tool-name", "fs_grep",
					"--tool-arg", "pattern=needlecase", "--tool-arg", "output_mode=content"}
				var res struct {
					Content []struct{ Text string }
					IsError bool
				}
				if err := json.Unmarshal(inspector(append(base, args...)...), &res); err != nil {
					t.Fatalf("tools/call: %v", err)
				}
				for _, c := range res.Content {
					text += c.Text
				}
				return text, res.IsError
			}
			want := filepath.Join(tr.root, "inspector.txt") + ":1:Shout NEEDLECASE"
			if text, isErr := grep("--tool-arg", "-i=true"); isErr || !strings.Contains(text, want) {
				t.Errorf("fs_grep -i=true: %q (isError %v), want %q", text, isErr, want)
			}
			if text, _ := grep(); strings.Contains(text, want) {
				t.Errorf("fs_grep without -i matched across case: %q", text)
			}
		})
	}
}
