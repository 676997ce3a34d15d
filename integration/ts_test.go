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

// tsCall is one step of the TypeScript client's plan and what it must give.
type tsCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	want      string         // substring of the result text
	wantError bool
}

type tsReport struct {
	ServerInfo struct{ Name string }
	Tools      []string
	Results    []struct {
		IsError       bool
		ProtocolError bool
		Text          string
	}
}

// tsNode is the node binary for ts/client.mjs; it skips the test where
// node or the TypeScript SDK (`npm ci --prefix integration/ts`) is missing.
func tsNode(t *testing.T) string {
	t.Helper()
	return nodeWith(t, "ts/node_modules/@modelcontextprotocol/sdk", "the TypeScript client check", "`npm ci --prefix integration/ts`")
}

// nodeWith returns the node binary, skipping the test, saying what does
// not run and how to enable it, where node or the npm packages that
// marker stands for are missing.
func nodeWith(t *testing.T, marker, what, install string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("SKIPPED: node is not installed; %s does not run", what)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Skipf("SKIPPED: run %s to enable %s", install, what)
	}
	return node
}

// runTS runs ts/client.mjs on plan (transport, command or url, calls) and
// returns its report.
func runTS(t *testing.T, node string, plan map[string]any) tsReport {
	t.Helper()
	return runNodeClient(t, node, "ts/client.mjs", plan)
}

// runNodeClient runs a client script that reads plan on stdin and prints
// a tsReport.
func runNodeClient(t *testing.T, node, script string, plan map[string]any) tsReport {
	t.Helper()
	in, _ := json.Marshal(plan)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // only bounds a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Stdin = strings.NewReader(string(in))
	cmd.Stderr = &testLog{t: t, prefix: "ts: "}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("TypeScript client failed: %v\n%s", err, out)
	}
	var rep tsReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("bad report %q: %v", out, err)
	}
	return rep
}

// checkTS fails the test for each call whose result is not what it wants,
// or is a protocol error.
func checkTS(t *testing.T, calls []tsCall, rep tsReport) {
	t.Helper()
	for i, c := range calls {
		r := rep.Results[i]
		if r.IsError != c.wantError || r.ProtocolError || !strings.Contains(r.Text, c.want) {
			t.Errorf("%s(%v) = %+v, want error=%v and %q", c.Name, c.Arguments, r, c.wantError, c.want)
		}
	}
}

// TestTypeScriptClient drives fsmcp with the official TypeScript SDK
// client, so the server is proven against a client that is not Go's.
// It needs node and `npm ci --prefix integration/ts` (.ci/run does that).
func TestTypeScriptClient(t *testing.T) {
	node := tsNode(t)
	tr := newTree(t)
	for _, m := range modes(t) {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(m.name+"/"+transport, func(t *testing.T) {
				file := filepath.Join(tr.root, "ts-"+m.name+"-"+transport+".txt")
				calls := []tsCall{
					{Name: "fs_write", Arguments: map[string]any{"file_path": file, "content": "from typescript\n"}, want: "Wrote 16 bytes"},
					{Name: "fs_read", Arguments: map[string]any{"file_path": file}, want: "1\tfrom typescript"},
					{Name: "fs_edit", Arguments: map[string]any{"file_path": file, "old_string": "typescript", "new_string": "node"}, want: "Replaced 1 occurrence(s)"},
					{Name: "fs_read", Arguments: map[string]any{"file_path": filepath.Join(tr.outside, "secret.txt")}, want: "outside allowed directories", wantError: true},
					{Name: "fs_glob", Arguments: map[string]any{"pattern": "**/*.go"}, want: tr.path("sub/c.go")},
					{Name: "fs_grep", Arguments: map[string]any{"pattern": "needle one", "output_mode": "content"}, want: tr.path("a.txt") + ":2:needle one"},
					{Name: "fs_bash", Arguments: map[string]any{"command": "cd sub && pwd"}, want: tr.path("sub")},
					{Name: "fs_bash", Arguments: map[string]any{"command": "pwd; echo oops >&2; exit 3"}, want: tr.path("sub") + "\noops", wantError: true},
					{Name: "fs_bash", Arguments: map[string]any{"command": "true"}, want: ""},
				}
				plan := map[string]any{"transport": transport, "calls": calls}
				if transport == "stdio" {
					plan["command"], plan["args"] = binary, []string{tr.root}
					plan["env"] = map[string]string{"PATH": m.path}
				} else {
					url, _ := startHTTP(t, m, tr.root)
					plan["url"] = url
				}
				rep := runTS(t, node, plan)
				for _, name := range []string{"fs_read", "fs_write", "fs_edit", "fs_glob", "fs_grep", "fs_bash"} {
					if !slices.Contains(rep.Tools, name) {
						t.Errorf("tools/list lacks %s: %v", name, rep.Tools)
					}
				}
				if rep.ServerInfo.Name != "fsmcp" {
					t.Errorf("serverInfo = %+v", rep.ServerInfo)
				}
				checkTS(t, calls, rep)
				if got := readFile(t, file); got != "from node\n" {
					t.Errorf("file = %q", got)
				}
			})
		}
	}
}
