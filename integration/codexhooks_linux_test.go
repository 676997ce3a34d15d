package integration

import (
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
	"time"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// TestCodexSessionUndoneThroughHooks (issue 46): the real Codex (pinned
// in clients/), driven by a scripted model, runs a session of its own
// exec_command and apply_patch on the undo table's fixture: cd, sed -i,
// rm -r of a directory, an rm -rf Codex refuses itself, mv, a heredoc,
// git checkout -- ., a loop making 300 files, a background process, a
// failing command, a command a rule of the user's forbids, a patch Codex
// refuses and one it applies (to a set-uid file). Once without fsmcp's
// hooks, once with them (fsmcp hooks install codex --user, which makes
// Codex trust them): every tool result the model is sent is the same;
// with the hooks every change is in the project's history under one
// session label, and fsmcp undo DIR --session LABEL gives the tree back
// byte for byte.
func TestCodexSessionUndoneThroughHooks(t *testing.T) {
	codex := hostBinary(t, "codex")
	m := modes(t)[0]
	sh := func(root, cmd string) [2]any {
		return [2]any{"exec_command", map[string]any{"cmd": cmd, "workdir": root}}
	}
	calls := func(root string) [][2]any {
		return [][2]any{
			sh(root, "cd tree && sed -i 's/a/A/' a.txt && pwd"),
			sh(root, "cd tree && rm -r empty && mv ../f.txt f-moved.txt && ls"),
			sh(root, "rm -rf tree/deep"),
			sh(root, "cd tree && cat > notes.md <<'EOF'\nline with 'quotes', $(not expanded) and ünï\nEOF\necho \"done $((1+2))\""),
			sh(root, "git checkout -- . && git status --short | head -3"),
			sh(root, "cd tree && for i in $(seq 1 300); do echo $i > many_$i.txt; done; ls | wc -l"),
			// setsid: Codex ends the process group of a command that
			// returned, and what it left would die before it wrote.
			sh(root, "setsid sh -c 'sleep 0.3; echo bg > tree/bg.txt' >/dev/null 2>&1 &"),
			sh(root, "echo err >&2; exit 3"), // one stream: Codex reads stdout and stderr apart, their order racing
			sh(root, "touch denied.txt"),
			{"apply_patch", "*** Begin Patch\n*** Update File: tree/a.txt\n@@\n-not there\n+x\n*** End Patch\n"},
			{"apply_patch", "*** Begin Patch\n*** Add File: new.txt\n+new\n*** Update File: suid.sh\n@@\n-echo hi\n+echo HI\n*** End Patch\n"},
			sh(root, "printf 'piped\\n' | cat; echo $'tab\\there'; "+waitFor("tree/bg.txt")+"; ls tree/bg.txt"),
		}
	}
	skip := func(rel string) bool { return rel == "sig" || rel == "." }
	session := func(hooked bool) (root string, results []string, state string, before map[string]string) {
		root = undoFixture(t)
		state = filepath.Join(t.TempDir(), "state")
		home := t.TempDir()
		codexHome := filepath.Join(home, ".codex")
		write(t, filepath.Join(codexHome, "rules", "default.rules"), `prefix_rule(pattern=["touch"], decision="forbidden")`+"\n")
		env := []string{"PATH=" + m.path, "HOME=" + home, "CODEX_HOME=" + codexHome, "XDG_STATE_HOME=" + state, "STANDIN_API_KEY=sk-test-stand-in"}
		if hooked {
			install := exec.Command(binary, "hooks", "install", "codex", "--user")
			install.Dir = root
			install.Env = append(os.Environ(), env...)
			if out, err := install.CombinedOutput(); err != nil {
				t.Fatalf("fsmcp hooks install codex: %v\n%s", err, out)
			}
		}
		before = treeStateSkip(root, skip)
		model := &codexScript{calls: calls(root)}
		api := httptest.NewServer(model)
		defer api.Close()
		runHost(t, root, env, codex, "exec", "--skip-git-repo-check", "-m", "gpt-5.5",
			"-c", `model_provider="standin"`,
			"-c", fmt.Sprintf(`model_providers.standin={name="stand-in",base_url=%q,wire_api="responses",env_key="STANDIN_API_KEY"}`, api.URL+"/v1"),
			"-c", `approval_policy="never"`, "-c", `sandbox_mode="danger-full-access"`,
			"Work on the project.")
		return root, model.results(), state, before
	}

	plainRoot, plain, _, _ := session(false)
	root, hooked, state, before := session(true)
	if len(plain) != len(calls(root)) || len(hooked) != len(plain) {
		t.Fatalf("the model got %d results without the hooks, %d with them; it made %d calls", len(plain), len(hooked), len(calls(root)))
	}
	sameResults(t, plainRoot, plain, root, hooked)
	for i, want := range map[int]string{2: "rm -f style", 7: "exited with code 3", 8: "forbids", 9: "verification failed"} {
		if !strings.Contains(hooked[i], want) {
			t.Errorf("call %d answered %q, want %q in it", i+1, hooked[i], want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "denied.txt")); err == nil {
		t.Error("the command the rule forbids ran")
	}

	fsmcp := fsmcpIn(t, state)
	hist := fsmcp("history", root)
	label := oneSession(t, hist, "codex")
	for _, want := range []string{"exec_command", "apply_patch", "$ cd tree && sed -i", "$ git checkout", "many_1.txt", "new.txt", "suid.sh", "$ cd tree && cat > notes.md <<'EOF'"} {
		if !strings.Contains(hist, want) {
			t.Errorf("history lacks %q:\n%s", want, hist)
		}
	}
	if strings.Contains(hist, "denied.txt") || strings.Contains(hist, "rm -rf") {
		t.Errorf("history lists a refused call:\n%s", hist)
	}
	if n := strings.Count(hist, "  apply_patch  "); n != 1 {
		t.Errorf("history lists %d apply_patch calls, want the one that patched:\n%s", n, hist)
	}
	t.Logf("fsmcp undo %s --session %s:\n%s", root, label, fsmcp("undo", root, "--session", label))
	if d := testenv.StateDiff(before, treeStateSkip(root, skip)); d != "" {
		t.Errorf("after the undo:\n%s", d)
	}
}

// codexScript stands in for the Responses API for a session of Codex's
// own tools: one call a turn (call_N for call N; apply_patch as the
// freeform tool it is), each output recorded without what changes from
// run to run (Codex's chunk id and wall time).
type codexScript struct {
	calls [][2]any
	seenResults
}

var codexVarying = regexp.MustCompile(`(?m)^(Chunk ID|Wall time|Original token count): .*\n`)

func (s *codexScript) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			outputs[it.CallID] = codexVarying.ReplaceAllString(lastOutputText(it.Output), "")
		}
	}
	s.mu.Lock()
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
	id := fmt.Sprintf("resp_%d", time.Now().UnixNano())
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	switch {
	case next < 0:
		event(map[string]any{"type": "response.output_item.done", "item": map[string]any{"type": "message", "role": "assistant",
			"id": "msg_" + id, "content": []any{map[string]any{"type": "output_text", "text": "Done."}}}})
	case s.calls[next][0] == "apply_patch":
		event(map[string]any{"type": "response.output_item.done", "item": map[string]any{"type": "custom_tool_call",
			"id": fmt.Sprintf("ctc_%d", next+1), "call_id": fmt.Sprintf("call_%d", next+1), "name": "apply_patch", "input": s.calls[next][1]}})
	default:
		a, _ := json.Marshal(s.calls[next][1])
		event(map[string]any{"type": "response.output_item.done", "item": map[string]any{"type": "function_call",
			"id": fmt.Sprintf("fc_%d", next+1), "call_id": fmt.Sprintf("call_%d", next+1), "name": s.calls[next][0], "arguments": string(a)}})
	}
	event(map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
}
