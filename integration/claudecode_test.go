package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// claudeStep is one turn of the scripted model: the fsmcp tool it calls
// with the default arguments an agent would send.
type claudeStep struct {
	tool string
	args map[string]any
	note string // what the answer's last line must say, so the model can page
}

// TestClaudeCodeGetsEveryDefaultAnswerWhole drives Claude Code (the real
// host, pinned in clients/) with a scripted model: a loopback stand-in for
// the Messages API (ANTHROPIC_BASE_URL) that asks, turn by turn, for a
// default fs_read of a 120 KB file, a content fs_grep with thousands of
// matches and a `**/*` fs_glob over 1,500 files. Claude Code saves an MCP
// result over its limit to a file and shows the model a preview, so the
// paging note at the end would never arrive; the test checks that each
// tool_result the model receives is byte for byte the answer fsmcp gives
// a plain MCP client, note included.
func TestClaudeCodeGetsEveryDefaultAnswerWhole(t *testing.T) {
	clientsNode(t) // skips where node or the pinned clients are missing
	claude, err := filepath.Abs(filepath.Join("clients", "node_modules", ".bin", "claude"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(claude); err != nil {
		t.Skipf("SKIPPED: Claude Code is not installed in clients/ (`make clients`): %v", err)
	}
	m := modes(t)[0]
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var big strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&big, "line %04d: the quick brown fox jumps over it\n", i+1)
	}
	write(t, filepath.Join(root, "big.txt"), big.String())
	for i := range 1500 {
		write(t, filepath.Join(root, "pkg", fmt.Sprintf("d%02d", i%40), fmt.Sprintf("file%04d.txt", i)), "fox\n")
	}
	steps := []claudeStep{
		{"fs_read", map[string]any{"file_path": filepath.Join(root, "big.txt")}, "offset="},
		{"fs_grep", map[string]any{"pattern": "quick brown", "path": root, "output_mode": "content"}, "offset="},
		{"fs_glob", map[string]any{"pattern": "**/*.txt", "path": root}, "offset="},
	}

	// What a plain MCP client gets for each step.
	cs := connectStdio(t, m, root)
	want := make([]string, len(steps))
	for i, s := range steps {
		want[i] = mustCall(t, cs, s.tool, s.args)
		if len(want[i]) < 20000 || !strings.Contains(want[i], s.note) {
			t.Fatalf("%s's default answer is %d characters without %q; the test wants a big, paged answer:\n%.400s", s.tool, len(want[i]), s.note, want[i])
		}
	}

	model := &scriptedModel{t: t, steps: steps}
	api := httptest.NewServer(model)
	defer api.Close()

	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"fsmcp": map[string]any{"type": "stdio", "command": binary, "args": []string{root}},
	}})
	var allowed []string
	for _, s := range steps {
		allowed = append(allowed, "mcp__fsmcp__"+s.tool)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // only bounds a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "Look around the project.",
		"--mcp-config", string(cfg), "--strict-mcp-config",
		"--allowedTools", strings.Join(allowed, ","),
		"--output-format", "json", "--model", "claude-sonnet-4-5")
	home := t.TempDir()
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+m.path, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"ANTHROPIC_BASE_URL="+api.URL, "ANTHROPIC_API_KEY=sk-ant-test-stand-in",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_ENABLE_TELEMETRY=0")
	cmd.Stderr = &testLog{t: t, prefix: "claude: "}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	got := model.results()
	if len(got) != len(steps) {
		t.Fatalf("the model received %d tool results, want %d; claude printed:\n%s", len(got), len(steps), out)
	}
	for i, s := range steps {
		if got[i] != want[i] {
			t.Errorf("%s: the model received %d characters, fsmcp answers %d; the model saw:\n%.600s", s.tool, len(got[i]), len(want[i]), got[i])
			continue
		}
		t.Logf("%s: %d characters reached the model whole, ending %q", s.tool, len(got[i]), lastLine(got[i]))
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// scriptedModel stands in for the Messages API: in the conversation that
// offers fsmcp's tools it asks for one step per turn and records each
// tool_result it is sent; any other request (a title, a check) gets a
// short text.
type scriptedModel struct {
	t     *testing.T
	steps []claudeStep
	mu    sync.Mutex
	seen  []string // tool_result texts, by step
}

func (s *scriptedModel) results() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func (s *scriptedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.HasSuffix(r.URL.Path, "count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens":10}`)
		return
	}
	var req struct {
		Stream   bool `json:"stream"`
		Tools    []struct{ Name string }
		Messages []struct {
			Role    string
			Content json.RawMessage
		}
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	offered := false
	for _, tl := range req.Tools {
		offered = offered || tl.Name == "mcp__fsmcp__"+s.steps[0].tool
	}
	if !offered {
		s.answer(w, req.Stream, map[string]any{"type": "text", "text": "ok"}, "end_turn")
		return
	}
	var results []string
	for _, msg := range req.Messages {
		var blocks []struct {
			Type    string
			Content json.RawMessage
		}
		if msg.Role != "user" || json.Unmarshal(msg.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results = append(results, toolResultText(b.Content))
			}
		}
	}
	s.mu.Lock()
	s.seen = results
	s.mu.Unlock()
	if n := len(results); n < len(s.steps) {
		st := s.steps[n]
		s.answer(w, req.Stream, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", n+1),
			"name": "mcp__fsmcp__" + st.tool, "input": st.args}, "tool_use")
		return
	}
	s.answer(w, req.Stream, map[string]any{"type": "text", "text": "Done."}, "end_turn")
}

// toolResultText is a tool_result's content as one text: a string, or the
// text blocks joined as an MCP client joins them.
func toolResultText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var blocks []struct{ Type, Text string }
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// answer writes one assistant message with one content block, streamed as
// the Messages API streams it when the request asked for a stream.
func (s *scriptedModel) answer(w http.ResponseWriter, stream bool, block map[string]any, stop string) {
	msg := map[string]any{"id": "msg_standin", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"stop_reason": nil, "stop_sequence": nil, "content": []any{},
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}
	if !stream {
		msg["content"], msg["stop_reason"] = []any{block}, stop
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	bw := bufio.NewWriter(w)
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(bw, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"message": msg})
	start := map[string]any{}
	for k, v := range block {
		start[k] = v
	}
	var delta map[string]any
	if block["type"] == "tool_use" {
		input, _ := json.Marshal(block["input"])
		start["input"] = map[string]any{}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(input)}
	} else {
		start["text"] = ""
		delta = map[string]any{"type": "text_delta", "text": block["text"]}
	}
	event("content_block_start", map[string]any{"index": 0, "content_block": start})
	event("content_block_delta", map[string]any{"index": 0, "delta": delta})
	event("content_block_stop", map[string]any{"index": 0})
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{})
	_ = bw.Flush()
}
