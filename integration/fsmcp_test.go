package integration

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// These tests speak to the built binary as fsMCP's own clients do (Relay,
// or fsMCP's tests/helpers.js): raw JSON-RPC lines over stdio, protocol
// 2024-11-05, allowed directories from --allowed-dir or _meta.allowed_dirs.

const fsmcpInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"relay","version":"1"}}}`

// fsmcpCall sends a tools/call and returns its result's text and isError.
func fsmcpCall(t *testing.T, s *rawServer, id int, tool, args, meta string) (string, bool) {
	t.Helper()
	params := fmt.Sprintf(`{"name":%q,"arguments":%s`, tool, args)
	if meta != "" {
		params += `,"_meta":` + meta
	}
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}}`, id, params))
	m := s.next()
	res, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s: no result: %v", tool, m)
	}
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("%s: no content: %v", tool, m)
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	isErr, _ := res["isError"].(bool)
	return text, isErr
}

// initFsMCP initializes a raw server as fsMCP's clients do.
func initFsMCP(t *testing.T, s *rawServer) *rawServer {
	t.Helper()
	s.send(fsmcpInit)
	if m := s.next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// TestNoDirFailsClosed: started with no DIR (as Relay starts fsMCP, and as
// Claude Desktop starts servers in /), every path tool refuses until the
// call names directories in _meta.allowed_dirs; the refusal says how.
func TestNoDirFailsClosed(t *testing.T) {
	tr := newTree(t)
	cmd := exec.Command(binary) // no DIR, started inside the tree: it must not be served
	cmd.Dir = tr.root
	s := initFsMCP(t, startCmd(t, cmd))
	const refusal = "no allowed directories: start fsmcp with a directory (fsmcp /path/to/project), or send MCP roots or _meta.allowed_dirs"
	id := 2
	for _, c := range []struct{ tool, args string }{
		{"fs_read", fmt.Sprintf(`{"file_path":%q}`, tr.path("a.txt"))},
		{"fs_write", fmt.Sprintf(`{"file_path":%q,"content":"x"}`, tr.path("new.txt"))},
		{"fs_glob", `{"pattern":"**/*"}`},
		{"fs_grep", `{"pattern":"needle"}`},
		{"fs_bash", `{"command":"touch ran"}`},
		{"fs_list", fmt.Sprintf(`{"path":%q}`, tr.root)},
	} {
		for _, meta := range []string{"", `{"allowed_dirs":[]}`} {
			if text, isErr := fsmcpCall(t, s, id, c.tool, c.args, meta); !isErr || text != refusal {
				t.Errorf("%s (meta %s) = %v %q, want the refusal", c.tool, meta, isErr, text)
			}
			id++
		}
	}
	if _, err := os.Stat(tr.path("new.txt")); err == nil {
		t.Error("fs_write wrote with no allowed directory")
	}
	meta := fmt.Sprintf(`{"allowed_dirs":[%q]}`, tr.root)
	if text, isErr := fsmcpCall(t, s, id, "fs_read", fmt.Sprintf(`{"file_path":%q}`, tr.path("a.txt")), meta); isErr || !strings.Contains(text, needle) {
		t.Errorf("fs_read with allowed_dirs = %v %q", isErr, text)
	}
	if text, isErr := fsmcpCall(t, s, id+1, "fs_bash", `{"command":"pwd"}`, meta); isErr || text != tr.root {
		t.Errorf("fs_bash with allowed_dirs starts in %q (%v), want %s", text, isErr, tr.root)
	}
	other := fmt.Sprintf(`{"allowed_dirs":[%q]}`, tr.path("sub"))
	if text, isErr := fsmcpCall(t, s, id+2, "fs_read", fmt.Sprintf(`{"file_path":%q}`, tr.path("a.txt")), other); !isErr || !strings.HasSuffix(text, "outside allowed directories: "+tr.path("sub")) {
		t.Errorf("fs_read outside allowed_dirs = %v %q", isErr, text)
	}
}

// TestFsMCPProtocolAnswers: an unknown method is -32601 with fsMCP's
// unquoted message; an unknown tool an isError result; tools/list carries
// each tool's category, sorted by name.
func TestFsMCPProtocolAnswers(t *testing.T) {
	tr := newTree(t)
	s := initFsMCP(t, startRaw(t, "--allowed-dir", tr.root))
	s.send(`{"jsonrpc":"2.0","id":2,"method":"nope/x","params":{}}`)
	m := s.next()
	if e, _ := m["error"].(map[string]any); errorCode(m) != -32601 || e["message"] != "method not found: nope/x" {
		t.Errorf("unknown method: %v", m)
	}
	if text, isErr := fsmcpCall(t, s, 3, "nope", `{}`, ""); !isErr || text != "unknown tool: nope" {
		t.Errorf("unknown tool: %v %q", isErr, text)
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}`)
	m = s.next()
	tools, _ := m["result"].(map[string]any)["tools"].([]any)
	prev := ""
	for _, v := range tools {
		tool := v.(map[string]any)
		name := tool["name"].(string)
		want := "File System"
		if name == "fs_bash" {
			want = "Shell"
		}
		if tool["category"] != want {
			t.Errorf("%s: category %v, want %s", name, tool["category"], want)
		}
		if name < prev {
			t.Errorf("tools/list not sorted by name: %s after %s", name, prev)
		}
		prev = name
	}
	if len(tools) == 0 {
		t.Fatalf("tools/list: %v", m)
	}
	// fsMCP's context parameter, and an argument no schema names: still
	// answered, and the answer says it was ignored.
	text, isErr := fsmcpCall(t, s, 5, "fs_grep", fmt.Sprintf(`{"pattern":"needle one","path":%q,"output_mode":"content","context":1,"bogus":true}`, tr.path("a.txt")), "")
	if isErr || !strings.HasPrefix(text, "1-alpha\n2:needle one\n3-beta\n\nignored: bogus (fs_grep takes pattern,") {
		t.Errorf("fs_grep context on one file = %v %q", isErr, text)
	}
	if text, isErr := fsmcpCall(t, s, 6, "fs_bash", `{"command":"echo hi"}`, ""); isErr || text != "hi" {
		t.Errorf("fs_bash output not trimmed: %v %q", isErr, text)
	}
}
