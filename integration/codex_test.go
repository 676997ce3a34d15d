package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestCodexGetsEveryDefaultAnswerWhole drives Codex (pinned in clients/)
// with a scripted model: a loopback stand-in for the OpenAI Responses API
// (a model provider whose base_url is the stand-in), with one of the
// models Codex knows, whose tool results it keeps up to 48,000 bytes and
// cuts in the middle past that. fsmcp runs with --max-output 100000, so
// only its rule for Codex (docs/clients.md, "Answer size per host") keeps
// the answers within: each function_call_output must be byte for byte
// what fsmcp gives a plain client named as Codex, at most 47,900 bytes,
// where a client of no known limit gets more.
func TestCodexGetsEveryDefaultAnswerWhole(t *testing.T) {
	codex := hostBinary(t, "codex")
	m := modes(t)[0]
	args := []string{"--max-output", "100000"}
	f := newHostFixture(t, m, "codex-mcp-client", "0.171.0", args...)
	plain := f.answers(t, m, "fsmcp-integration", "1", args...)
	for i, c := range f.calls {
		if len(f.want[i]) > 47900 || len(plain[i]) <= len(f.want[i]) {
			t.Fatalf("%s: fsmcp answers Codex %d bytes and a plain client %d; want Codex's within 47,900 and less", c.tool, len(f.want[i]), len(plain[i]))
		}
	}

	model := &responsesModel{calls: f.calls}
	api := httptest.NewServer(model)
	defer api.Close()
	server := fmt.Sprintf(`{command=%q,args=[%q,%q,%q],env={PATH=%q}}`, binary, args[0], args[1], f.root, m.path)
	home := t.TempDir()
	out := runHost(t, f.root, []string{"PATH=" + m.path, "HOME=" + home, "CODEX_HOME=" + home, "STANDIN_API_KEY=sk-test-stand-in"},
		codex, "exec", "--skip-git-repo-check", "-m", "gpt-6.2-sol",
		"-c", `model_provider="standin"`,
		"-c", fmt.Sprintf(`model_providers.standin={name="stand-in",base_url=%q,wire_api="responses",env_key="STANDIN_API_KEY"}`, api.URL+"/v1"),
		"-c", "mcp_servers.fsmcp="+server,
		"-c", `approval_policy="never"`,
		"Look around the project.")
	if model.requests() == 0 {
		t.Fatalf("codex sent the stand-in no request; it printed:\n%s", out)
	}
	f.check(t, "Codex", model.received())
}

// responsesModel stands in for the Responses API: it makes one call per
// turn (call_N for call N) of a tool in Codex's mcp__fsmcp namespace and
// records the text of each function_call_output; Codex puts its own
// "Wall time" item first, so the tool's answer is the last text item.
type responsesModel struct {
	calls []hostCall
	mu    sync.Mutex
	n     int
	seen  []string
}

func (s *responsesModel) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *responsesModel) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func (s *responsesModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	outputs := map[string]string{}
	for _, it := range req.Input {
		if it.Type == "function_call_output" {
			outputs[it.CallID] = lastOutputText(it.Output)
		}
	}
	s.mu.Lock()
	s.n++
	s.seen = s.seen[:0]
	next := -1
	for i := range s.calls {
		out, ok := outputs[fmt.Sprintf("call_%d", i+1)]
		if !ok {
			next = i
			break
		}
		s.seen = append(s.seen, out)
	}
	s.mu.Unlock()

	w.Header().Set("Content-Type", "text/event-stream")
	event := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
	}
	id := fmt.Sprintf("resp_%d", s.requests())
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	if next >= 0 {
		c := s.calls[next]
		a, _ := json.Marshal(c.args)
		event(map[string]any{"type": "response.output_item.done", "item": map[string]any{"type": "function_call",
			"id": fmt.Sprintf("fc_%d", next+1), "call_id": fmt.Sprintf("call_%d", next+1),
			"namespace": "mcp__fsmcp", "name": c.tool, "arguments": string(a)}})
	} else {
		event(map[string]any{"type": "response.output_item.done", "item": map[string]any{"type": "message", "role": "assistant",
			"id": "msg_" + id, "content": []any{map[string]any{"type": "output_text", "text": "Done."}}}})
	}
	event(map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
}

// lastOutputText is a function_call_output's answer: a string, or the
// text of its last input_text item.
func lastOutputText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var items []struct{ Type, Text string }
	_ = json.Unmarshal(raw, &items)
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Type == "input_text" {
			return items[i].Text
		}
	}
	return ""
}
