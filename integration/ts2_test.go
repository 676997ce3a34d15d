package integration

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"testing"
)

// TestTypeScriptClientOnTheStatelessEra: the TypeScript
// @modelcontextprotocol/client 2.x, pinned to 2026-07-28, connects to
// fsmcp's /mcp over HTTP with server/discover, lists and calls tools, and
// keeps fs_bash's working directory by passing back the session the first
// answer named. It needs node and `npm ci --prefix integration/ts2`.
func TestTypeScriptClientOnTheStatelessEra(t *testing.T) {
	node := nodeWith(t, "ts2/node_modules/@modelcontextprotocol/client", "the TypeScript 2.x client check", "`npm ci --prefix integration/ts2`")
	tr := newTree(t)
	m := modes(t)[0]
	url, _ := startHTTP(t, m, "--shell", "on", tr.root)
	calls := []tsCall{
		{Name: "fs_read", Arguments: map[string]any{"file_path": tr.path("a.txt")}, want: needle},
		{Name: "fs_bash", Arguments: map[string]any{"command": "cd sub && pwd"}, want: "[session: sess-"},
		{Name: "fs_bash", Arguments: map[string]any{"command": "pwd", "session": "$session"}, want: tr.path("sub") + "\n[session: sess-"},
		{Name: "fs_bash", Arguments: map[string]any{"command": "pwd", "session": "sess-GONE"}, want: "unknown session", wantError: true},
	}
	plan, _ := json.Marshal(map[string]any{"url": url, "calls": calls})
	cmd := exec.Command(node, "ts2/client.mjs")
	cmd.Stdin = bytes.NewReader(plan)
	cmd.Stderr = &testLog{t: t, prefix: "ts2: "}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("TypeScript 2.x client failed: %v\n%s", err, out)
	}
	var rep struct {
		tsReport
		Protocol string
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("bad report %q: %v", out, err)
	}
	if rep.Protocol != statelessVersion {
		t.Errorf("negotiated %q, want %s", rep.Protocol, statelessVersion)
	}
	if !slices.Contains(rep.Tools, "fs_bash") {
		t.Errorf("tools/list lacks fs_bash: %v", rep.Tools)
	}
	checkTS(t, calls, rep.tsReport)
}

// TestTypeScriptClientAnswersRootsOnTheStatelessEra: fsmcp over HTTP
// started without a DIR, and the TypeScript 2.x client pinned to
// 2026-07-28 offering one root: its calls are asked for roots
// (input_required, roots/list), the client answers them by itself from its
// roots handler, and they are served in that root; one outside is refused.
func TestTypeScriptClientAnswersRootsOnTheStatelessEra(t *testing.T) {
	node := nodeWith(t, "ts2/node_modules/@modelcontextprotocol/client", "the TypeScript 2.x client check", "`npm ci --prefix integration/ts2`")
	tr := newTree(t)
	url, _ := startHTTP(t, modes(t)[0], "--shell", "off")
	calls := []tsCall{
		{Name: "fs_read", Arguments: map[string]any{"file_path": tr.path("a.txt")}, want: needle},
		{Name: "fs_read", Arguments: map[string]any{"file_path": tr.outside + "/secret.txt"}, want: "outside allowed directories: " + tr.root, wantError: true},
	}
	plan, _ := json.Marshal(map[string]any{"url": url, "calls": calls, "roots": []string{fileURI(tr.root)}})
	cmd := exec.Command(node, "ts2/client.mjs")
	cmd.Stdin = bytes.NewReader(plan)
	cmd.Stderr = &testLog{t: t, prefix: "ts2: "}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("TypeScript 2.x client failed: %v\n%s", err, out)
	}
	var rep tsReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("bad report %q: %v", out, err)
	}
	checkTS(t, calls, rep)
}
