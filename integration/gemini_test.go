package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
)

// TestGeminiCLIGetsEveryDefaultAnswerWhole drives Gemini CLI (pinned in
// clients/) with a scripted model: a loopback stand-in for the Gemini API
// (GOOGLE_GEMINI_BASE_URL). Gemini CLI saves an MCP text longer than
// 40,000 UTF-16 units to a file and shows the model its head and tail;
// fsmcp runs with --max-output 100000, so only its rule for Gemini CLI
// (docs/clients.md, "Answer size per host") keeps the answers within. Each
// functionResponse must carry, inside the <untrusted_context> wrapper
// Gemini CLI puts around MCP text, byte for byte what fsmcp gives a plain
// client named as Gemini CLI.
func TestGeminiCLIGetsEveryDefaultAnswerWhole(t *testing.T) {
	gemini := hostBinary(t, "gemini")
	node := clientsNode(t)
	m := modes(t)[0]
	args := []string{"--max-output", "100000"}
	f := newHostFixture(t, m, "gemini-cli-mcp-client", "0.61.0", args...)
	plain := f.answers(t, m, "fsmcp-integration", "1", args...)
	for i, c := range f.calls {
		if n := len(utf16.Encode([]rune(f.want[i]))); n > 40000 || len(plain[i]) <= len(f.want[i]) {
			t.Fatalf("%s: fsmcp answers Gemini CLI %d UTF-16 units and a plain client %d bytes; want Gemini CLI's within 40,000 and less", c.tool, n, len(plain[i]))
		}
	}

	model := &geminiModel{calls: f.calls}
	api := httptest.NewServer(model)
	defer api.Close()
	home := t.TempDir()
	settings, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"fsmcp": map[string]any{"command": binary, "args": append(args, f.root), "env": map[string]string{"PATH": m.path}}},
		"security":   map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":    map[string]any{"usageStatisticsEnabled": false},
		"telemetry":  map[string]any{"enabled": false},
		"general":    map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
	})
	write(t, filepath.Join(home, ".gemini", "settings.json"), string(settings))
	out := runHost(t, f.root, []string{"PATH=" + m.path, "HOME=" + home, "GEMINI_API_KEY=test-stand-in",
		"GOOGLE_GEMINI_BASE_URL=" + api.URL, "GEMINI_CLI_TRUST_WORKSPACE=true", "NO_COLOR=1"},
		node, gemini, "-p", "Look around the project.", "--yolo", "-m", "gemini-2.5-pro")
	if model.requests() == 0 {
		t.Fatalf("gemini sent the stand-in no request; it printed:\n%s", out)
	}
	f.check(t, "Gemini CLI", model.received())
}

// geminiModel stands in for the Gemini API's streamGenerateContent: it
// makes one functionCall per turn of fsmcp's tool (Gemini CLI names it
// mcp_fsmcp_<tool>) and records the output of each functionResponse, the
// <untrusted_context> wrapper taken off.
type geminiModel struct {
	calls []hostCall
	mu    sync.Mutex
	n     int
	seen  []string
}

func (s *geminiModel) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *geminiModel) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func (s *geminiModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if strings.Contains(r.URL.Path, ":countTokens") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"totalTokens":10}`)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					Name     string `json:"name"`
					Response struct {
						Output string `json:"output"`
					} `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var results []string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				results = append(results, unwrapUntrusted(p.FunctionResponse.Response.Output))
			}
		}
	}
	s.mu.Lock()
	s.n++
	s.seen = results
	s.mu.Unlock()

	part := map[string]any{"text": "Done."}
	if n := len(results); n < len(s.calls) {
		c := s.calls[n]
		part = map[string]any{"functionCall": map[string]any{"name": "mcp_fsmcp_" + c.tool, "args": c.args}}
	}
	resp, _ := json.Marshal(map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-2.5-pro",
	})
	if r.URL.Query().Get("alt") == "sse" {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(resp)
}

// unwrapUntrusted takes off the wrapper Gemini CLI puts around an MCP
// tool's text: "<untrusted_context>\n" … "\n</untrusted_context>".
func unwrapUntrusted(s string) string {
	const open, end = "<untrusted_context>\n", "\n</untrusted_context>"
	if strings.HasPrefix(s, open) && strings.HasSuffix(s, end) {
		return s[len(open) : len(s)-len(end)]
	}
	return s
}
