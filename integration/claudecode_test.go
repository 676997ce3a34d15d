package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// upfront are the fsmcp tools Claude Code must send the model in full from
// the first request (profiles/fsmcp's Upfront); the others it defers.
var upfront = []string{"fs_bash", "fs_edit", "fs_glob", "fs_grep", "fs_read", "fs_write"}

// TestClaudeCodeGetsEveryDefaultAnswerWhole drives Claude Code (the real
// host, pinned in clients/; 2.1.328 and later defer every MCP tool behind
// ToolSearch unless the server says anthropic/alwaysLoad) with a scripted
// model: a loopback stand-in for the Messages API (ANTHROPIC_BASE_URL).
//
// The first request must carry the full schemas of fsmcp's six up-front
// tools and name the other ten only as deferred. The model then calls
// fs_read, fs_grep and fs_glob directly, loads fs_list through ToolSearch
// (select:mcp__fsmcp__fs_list) as the host expects and calls it, reads a
// Greek file, and searches by the words of each deferred tool's
// description ("undo changes"), which must find it. Every answer is big
// enough to be cut; Claude Code saves a result over its limit to a file
// and shows the model a preview, so the paging note at the end would never
// arrive: each tool_result must be byte for byte what fsmcp gives a plain
// MCP client; with --max-output 200000 (declared to Claude Code as each
// tool's anthropic/maxResultSizeChars) a 90 KB answer arrives whole too.
// With the per-server opt-out ("alwaysLoad": true in the config) every
// fsmcp tool is in the first request.
func TestClaudeCodeGetsEveryDefaultAnswerWhole(t *testing.T) {
	claude := hostBinary(t, "claude")
	m := modes(t)[0]
	f := newHostFixture(t, m, "claude-code", "2.1.332")
	f.withSearches(map[string]string{"fs_list": "select:mcp__fsmcp__fs_list"},
		hostCall{search: "list a directory", finds: "fs_list"},
		hostCall{search: "file metadata", finds: "fs_stat"},
		hostCall{search: "mkdir", finds: "fs_mkdir"}, // "create a directory" ranks the host's TaskCreate and CronCreate first
		hostCall{search: "move or rename a file", finds: "fs_move"},
		hostCall{search: "copy a file", finds: "fs_copy"},
		hostCall{search: "delete a file", finds: "fs_delete"},
		hostCall{search: "catalog a directory tree", finds: "fs_catalog"},
		hostCall{search: "watch a directory for changes", finds: "fs_watch"},
		hostCall{search: "history of file changes", finds: "fs_history"},
		hostCall{search: "undo changes", finds: "fs_undo"},
		// The words a user says (the tools' anthropic/searchHint).
		hostCall{search: "undo that", finds: "fs_undo"},
		hostCall{search: "revert the last change", finds: "fs_undo"},
		hostCall{search: "what changed recently", finds: "fs_history"},
	)
	listed := toolSchemas(t, m, f.root)

	model := &claudeModel{t: t, calls: f.calls}
	out := runClaude(t, claude, m, f.root, model, map[string]any{"type": "stdio", "command": binary, "args": []string{f.root}}, f.calls)

	first := model.firstRequest()
	if first == nil {
		t.Fatalf("no request offered fsmcp's tools; claude printed:\n%s", out)
	}
	var deferred []string
	for name := range listed {
		if !slices.Contains(upfront, name) {
			deferred = append(deferred, name)
		}
	}
	sort.Strings(deferred)
	for _, name := range upfront {
		tool, ok := first.tool("mcp__fsmcp__" + name)
		switch {
		case !ok:
			t.Errorf("the first request lacks %s; it offers %v", name, first.names())
		case tool.DeferLoading:
			t.Errorf("%s is in the first request but deferred", name)
		case !sameKeys(tool.InputSchema.Properties, listed[name]):
			t.Errorf("%s's schema in the first request has %v, fsmcp lists %v", name, keys(tool.InputSchema.Properties), keys(listed[name]))
		}
	}
	reminder := first.deferredReminder()
	for _, name := range deferred {
		if tool, ok := first.tool("mcp__fsmcp__" + name); ok && !tool.DeferLoading {
			t.Errorf("%s, deferred, is loaded in the first request", name)
		}
		if !strings.Contains(reminder, "mcp__fsmcp__"+name+"\n") {
			t.Errorf("the first request does not name %s among the deferred tools:\n%s", name, reminder)
		}
	}
	t.Logf("first request: %d fsmcp tools in full (%s), %d deferred by name", len(upfront), strings.Join(upfront, ", "), len(deferred))

	got := model.received()
	for i, c := range f.calls {
		if c.search == "" || i >= len(got) {
			continue
		}
		refs := strings.Fields(got[i])
		if !slices.Contains(refs, "mcp__fsmcp__"+c.finds) {
			t.Errorf("ToolSearch %q returned %v, without %s", c.search, refs, c.finds)
			continue
		}
		t.Logf("ToolSearch %q found %s (rank %d of %d)", c.search, c.finds, slices.Index(refs, "mcp__fsmcp__"+c.finds)+1, len(refs))
	}
	f.check(t, "Claude Code", got)

	t.Run("declared size", func(t *testing.T) {
		// Each tool declares --max-output as anthropic/maxResultSizeChars,
		// so Claude Code keeps a larger answer whole too.
		big := []hostCall{{tool: "fs_read", args: map[string]any{"file_path": filepath.Join(f.root, "big.txt")}}}
		want := mustCall(t, connectStdio(t, m, "--max-output", "200000", f.root), "fs_read", big[0].args)
		if len(want) < 80000 {
			t.Fatalf("fs_read with --max-output 200000 answers %d characters; the test wants more than Claude Code's own limit", len(want))
		}
		model := &claudeModel{t: t, calls: big}
		runClaude(t, claude, m, f.root, model, map[string]any{"type": "stdio", "command": binary, "args": []string{"--max-output", "200000", f.root}}, big)
		if got := model.received(); len(got) != 1 || got[0] != want {
			t.Errorf("a %d-character answer did not reach the model whole (%d results)", len(want), len(got))
		} else {
			t.Logf("fs_read with --max-output 200000: %d characters reached the model whole, ending %q", len(want), lastLine(want))
		}
	})

	t.Run("alwaysLoad", func(t *testing.T) {
		one := []hostCall{{tool: "fs_stat", args: map[string]any{"path": f.root}}}
		model := &claudeModel{t: t, calls: one}
		runClaude(t, claude, m, f.root, model, map[string]any{"type": "stdio", "command": binary, "args": []string{f.root}, "alwaysLoad": true}, one)
		first := model.firstRequest()
		if first == nil {
			t.Fatal("no request offered fsmcp's tools")
		}
		for name := range listed {
			if tool, ok := first.tool("mcp__fsmcp__" + name); !ok || tool.DeferLoading {
				t.Errorf("with the server's alwaysLoad, %s is not loaded in the first request", name)
			}
		}
		if got := model.received(); len(got) != 1 || !strings.Contains(got[0], "directory") {
			t.Errorf("fs_stat, called directly, answered %q", got)
		}
	})
}

// runClaude runs claude -p with server as fsmcp's entry, the stand-in
// model answering; the calls' tools (and ToolSearch) are allowed.
func runClaude(t *testing.T, claude string, m mode, root string, model *claudeModel, server map[string]any, calls []hostCall) string {
	t.Helper()
	api := httptest.NewServer(model)
	defer api.Close()
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fsmcp": server}})
	allowed := []string{"ToolSearch"}
	for _, c := range calls {
		if c.tool != "" {
			allowed = append(allowed, "mcp__fsmcp__"+c.tool)
		}
	}
	home := t.TempDir()
	return runHost(t, root, []string{"PATH=" + m.path, "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"ANTHROPIC_BASE_URL=" + api.URL, "ANTHROPIC_API_KEY=sk-ant-test-stand-in",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_ENABLE_TELEMETRY=0"},
		claude, "-p", "Look around the project.",
		"--mcp-config", string(cfg), "--strict-mcp-config",
		"--allowedTools", strings.Join(allowed, ","),
		"--output-format", "json", "--model", "claude-sonnet-4-5")
}

// toolSchemas is each fsmcp tool's input properties, as tools/list gives
// them to a plain client.
func toolSchemas(t *testing.T, m mode, root string) map[string]map[string]any {
	t.Helper()
	cs := connectStdio(t, m, root)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, tool := range res.Tools {
		var s struct{ Properties map[string]any }
		raw, _ := json.Marshal(tool.InputSchema)
		_ = json.Unmarshal(raw, &s)
		out[tool.Name] = s.Properties
	}
	return out
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sameKeys(a, b map[string]any) bool { return slices.Equal(keys(a), keys(b)) }

// claudeRequest is the part of a Messages API request the test reads.
type claudeRequest struct {
	Stream   bool         `json:"stream"`
	Tools    []claudeTool `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type claudeTool struct {
	Name         string `json:"name"`
	DeferLoading bool   `json:"defer_loading"`
	InputSchema  struct {
		Properties map[string]any `json:"properties"`
	} `json:"input_schema"`
}

func (r *claudeRequest) tool(name string) (claudeTool, bool) {
	for _, t := range r.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return claudeTool{}, false
}

func (r *claudeRequest) names() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

// blocks are the content blocks of the user messages, in order.
func (r *claudeRequest) blocks() []claudeBlock {
	var out []claudeBlock
	for _, msg := range r.Messages {
		var bs []claudeBlock
		if msg.Role != "user" || json.Unmarshal(msg.Content, &bs) != nil {
			continue
		}
		out = append(out, bs...)
	}
	return out
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// deferredReminder is the text that names the deferred tools.
func (r *claudeRequest) deferredReminder() string {
	for _, b := range r.blocks() {
		if b.Type == "text" && strings.Contains(b.Text, "deferred tools") {
			return b.Text
		}
	}
	return ""
}

// claudeModel stands in for the Messages API: in the conversation that
// offers fsmcp's tools it makes one call per turn (toolu_N for call N)
// and records each tool_result it is sent, a ToolSearch's as the tool
// names it references; any other request (a title, a check) gets a short
// text.
type claudeModel struct {
	t     *testing.T
	calls []hostCall
	mu    sync.Mutex
	first *claudeRequest
	seen  []string // by call
}

func (s *claudeModel) firstRequest() *claudeRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first
}

func (s *claudeModel) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// messagesRequest reads a Messages API request; the other endpoints
// Claude Code calls (a token count) are answered here, and ok is false.
func messagesRequest(w http.ResponseWriter, r *http.Request) (req claudeRequest, ok bool) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.HasSuffix(r.URL.Path, "count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens":10}`)
		return req, false
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return req, false
	}
	return req, true
}

func (s *claudeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, ok := messagesRequest(w, r)
	if !ok {
		return
	}
	if _, ok := req.tool("ToolSearch"); !ok {
		s.answer(w, req.Stream, map[string]any{"type": "text", "text": "ok"}, "end_turn")
		return
	}
	results := map[string]string{}
	for _, b := range req.blocks() {
		if b.Type == "tool_result" {
			results[b.ToolUseID] = toolResultText(b.Content)
		}
	}
	s.mu.Lock()
	if s.first == nil {
		s.first = &req
	}
	s.seen = s.seen[:0]
	next := -1
	for i := range s.calls {
		res, ok := results[fmt.Sprintf("toolu_%d", i+1)]
		if !ok {
			next = i
			break
		}
		s.seen = append(s.seen, res)
	}
	s.mu.Unlock()
	if next < 0 {
		s.answer(w, req.Stream, map[string]any{"type": "text", "text": "Done."}, "end_turn")
		return
	}
	c := s.calls[next]
	use := map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", next+1), "name": "mcp__fsmcp__" + c.tool, "input": c.args}
	if c.search != "" {
		use["name"], use["input"] = "ToolSearch", map[string]any{"query": c.search}
	}
	s.answer(w, req.Stream, use, "tool_use")
}

// toolResultText is a tool_result's content as one text: a string, or the
// text blocks joined as an MCP client joins them; a ToolSearch's
// tool_reference blocks as the names they reference, one a line. A text
// block that is the host's own <system-reminder> is not part of the tool's
// answer, nor is the newline Claude Code (2.1.332) puts before it.
func toolResultText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var blocks []struct {
		Type, Text string
		ToolName   string `json:"tool_name"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Type == "text" && strings.HasPrefix(b.Text, "<system-reminder>"):
			if n := len(parts); n > 0 {
				parts[n-1] = strings.TrimSuffix(parts[n-1], "\n")
			}
		case b.Type == "text":
			parts = append(parts, b.Text)
		case b.Type == "tool_reference":
			parts = append(parts, b.ToolName)
		}
	}
	return strings.Join(parts, "\n")
}

// answer writes one assistant message with one content block, streamed as
// the Messages API streams it when the request asked for a stream.
func (s *claudeModel) answer(w http.ResponseWriter, stream bool, block map[string]any, stop string) {
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
