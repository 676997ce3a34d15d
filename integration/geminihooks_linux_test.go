package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// TestGeminiCLISessionUndoneThroughHooks (issue 46): the real Gemini CLI
// (pinned in clients/), driven by a scripted model, runs a session of its
// own run_shell_command (cd, sed -i, rm -rf of a directory, mv, a
// heredoc, git checkout -- ., a loop making 300 files, a background
// process, a failing command, a $(...) it blocks, a command a deny rule
// of the user's policy refuses) and write_file and replace (relative and
// absolute paths, a new file, an overwrite, a set-uid file, a replace
// that fails). Gemini CLI checks the command a BeforeTool hook returns,
// not the model's, so fsmcp rewrites none: fsmcp hooks install gemini
// --user puts BASH_ENV in ~/.gemini/.env, which its shell reads before
// each command. Once without fsmcp's hooks, once with them: every tool
// result the model is sent is the same (no "modified by a hook" note: no
// input is returned); with the hooks every change is in the project's
// history under one session label, and fsmcp undo DIR --session LABEL
// gives the tree back byte for byte. Where Gemini CLI gives a command no
// BASH_ENV of fsmcp's, its hook says the command is not journaled.
func TestGeminiCLISessionUndoneThroughHooks(t *testing.T) {
	gemini := hostBinary(t, "gemini")
	node := clientsNode(t)
	m := modes(t)[0]
	shell := func(cmd string) [2]any {
		return [2]any{"run_shell_command", map[string]any{"command": cmd, "description": "step"}}
	}
	calls := func(root string) [][2]any {
		return [][2]any{
			shell("cd tree && sed -i 's/a/A/' a.txt && pwd"),
			shell("cd tree && rm -rf empty && mv ../f.txt f-moved.txt && ls"),
			shell("cd tree && cat > notes.md <<'EOF'\nline with 'quotes', \"double\" and ünï\nEOF\necho done"),
			shell("git checkout -- . && git status --short | head -3"),
			shell("cd tree && for i in {1..300}; do echo $i > many_$i.txt; done; ls | wc -l"),
			shell("(sleep 0.3; echo bg > tree/bg.txt) >/dev/null 2>&1 &"),
			shell(waitFor("tree/bg.txt") + "; cat tree/bg.txt"),
			{"write_file", map[string]any{"file_path": "new.txt", "content": "new\n"}},
			{"replace", map[string]any{"file_path": filepath.Join(root, "tree", "a.txt"), "old_string": "a", "new_string": "replaced", "instruction": "step"}},
			{"replace", map[string]any{"file_path": "suid.sh", "old_string": "not there", "new_string": "x", "instruction": "step"}},
			{"write_file", map[string]any{"file_path": filepath.Join(root, "f.txt"), "content": "overwritten\n"}},
			shell("echo err >&2; exit 3"), // one stream: stdout and stderr read apart race
			shell("echo $(echo sub)"),
			shell("touch denied.txt"),
			{"replace", map[string]any{"file_path": "suid.sh", "old_string": "echo hi", "new_string": "echo HI", "instruction": "step"}},
		}
	}
	skip := func(rel string) bool { return rel == "sig" || rel == "." || rel == ".gemini" }
	session := func(hooked bool) (root string, results []string, state, out string, before map[string]string) {
		root = undoFixture(t)
		state = filepath.Join(t.TempDir(), "state")
		home := t.TempDir()
		settings, _ := json.Marshal(map[string]any{
			"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
			"privacy":   map[string]any{"usageStatisticsEnabled": false},
			"telemetry": map[string]any{"enabled": false},
			"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		})
		write(t, filepath.Join(home, ".gemini", "settings.json"), string(settings))
		write(t, filepath.Join(home, ".gemini", "policies", "deny.toml"), "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"touch\"\ndecision = \"deny\"\npriority = 900\n")
		env := []string{"PATH=" + m.path, "HOME=" + home, "XDG_STATE_HOME=" + state, "GEMINI_API_KEY=test-stand-in",
			"GEMINI_CLI_TRUST_WORKSPACE=true", "NO_COLOR=1"}
		if hooked {
			install := exec.Command(binary, "hooks", "install", "gemini", "--user")
			install.Dir = root
			install.Env = append(os.Environ(), env...)
			if out, err := install.CombinedOutput(); err != nil {
				t.Fatalf("fsmcp hooks install gemini: %v\n%s", err, out)
			}
			b, _ := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
			if !strings.Contains(string(b), `"selectedType": "gemini-api-key"`) {
				t.Fatalf("the install dropped the user's settings:\n%s", b)
			}
		}
		before = treeStateSkip(root, skip)
		model := &geminiScript{calls: calls(root)}
		api := httptest.NewServer(model)
		defer api.Close()
		cmd := exec.Command(node, gemini, "-p", "Work on the project.", "--yolo", "-m", "gemini-2.5-pro")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), append(env, "GOOGLE_GEMINI_BASE_URL="+api.URL)...)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("gemini: %v\n%s", err, b)
		}
		return root, model.results(), state, string(b), before
	}

	plainRoot, plain, _, _, _ := session(false)
	root, hooked, state, out, before := session(true)
	if len(plain) != len(calls(root)) || len(hooked) != len(plain) {
		t.Fatalf("the model got %d results without the hooks, %d with them; it made %d calls", len(plain), len(hooked), len(calls(root)))
	}
	sameResults(t, plainRoot, plain, root, hooked)
	if !strings.Contains(hooked[11], "3") || !strings.Contains(strings.ToLower(hooked[12]), "substitution") || !strings.Contains(strings.ToLower(hooked[13]), "polic") {
		t.Errorf("the failing, the $(...) and the denied command answered %q, %q and %q", hooked[11], hooked[12], hooked[13])
	}
	if strings.Contains(out, "not journaled") {
		t.Errorf("Gemini CLI showed a call not journaled:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(root, "denied.txt")); err == nil {
		t.Error("the command the deny rule refuses ran")
	}
	// The session's id left for a command goes with it, or after the call
	// (a $(...) Gemini CLI blocks); the one for a command its policy
	// denied (no hook comes after) waits until old.
	sum := sha256.Sum256([]byte("touch denied.txt"))
	left, _ := os.ReadDir(filepath.Join(state, "fsmcp", "hooks", "gemini-sessions"))
	for _, e := range left {
		if e.Name() != hex.EncodeToString(sum[:16]) {
			t.Errorf("the hooks left a session file behind: %s", e.Name())
		}
	}

	fsmcp := fsmcpIn(t, state)
	hist := fsmcp("history", root)
	label := oneSession(t, hist, "gemini")
	for _, want := range []string{"run_shell_command  session", "$ cd tree && sed -i", "$ git checkout -- .", "many_1.txt", "f-moved.txt", "$ cd tree && cat > notes.md <<'EOF'", "bg.txt"} {
		if !strings.Contains(hist, want) {
			t.Errorf("history lacks %q:\n%s", want, hist)
		}
	}
	if strings.Contains(hist, "denied.txt") || strings.Contains(hist, "echo $(echo sub)") {
		t.Errorf("history lists a refused call:\n%s", hist)
	}
	if n := strings.Count(hist, "  write_file  "); n != 2 {
		t.Errorf("history lists %d write_file calls, want 2:\n%s", n, hist)
	}
	if n := strings.Count(hist, "  replace  "); n != 2 {
		t.Errorf("history lists %d replace calls, want the 2 that replaced:\n%s", n, hist)
	}
	t.Logf("fsmcp undo %s --session %s:\n%s", root, label, fsmcp("undo", root, "--session", label))
	hook := exec.Command(binary, "hook", "gemini", "--state-home", state)
	hook.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "BASH_ENV=")
	hook.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"echo hi"}}`, root))
	if b, err := hook.Output(); err != nil || !strings.Contains(string(b), `"systemMessage":"fsmcp: not journaled: Gemini CLI gave this command no BASH_ENV`) || strings.Contains(string(b), "tool_input") {
		t.Errorf("the hook before a command given no BASH_ENV answered %v %s", err, b)
	}
	if d := testenv.StateDiff(before, treeStateSkip(root, skip)); d != "" {
		t.Errorf("after the undo:\n%s", d)
	}
}

// geminiScript stands in for the Gemini API for a session of Gemini CLI's
// own tools: one functionCall a turn, each functionResponse recorded
// whole.
type geminiScript struct {
	calls [][2]any
	seenResults
}

// geminiPGID is the process group and background processes Gemini CLI
// names in a shell result, new each run.
var geminiPGID = regexp.MustCompile(`(PGID|PIDs): [0-9]+`)

func (s *geminiScript) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
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
				res := geminiPGID.ReplaceAllString(string(p.FunctionResponse.Response), "$1: N")
				results = append(results, p.FunctionResponse.Name+" "+res)
			}
		}
	}
	s.mu.Lock()
	if len(results) >= len(s.seen) {
		s.seen = results
	}
	s.mu.Unlock()
	part := map[string]any{"text": "Done."}
	if n := len(results); n < len(s.calls) {
		part = map[string]any{"functionCall": map[string]any{"name": s.calls[n][0], "args": s.calls[n][1]}}
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
