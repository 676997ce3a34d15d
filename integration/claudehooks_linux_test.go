package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// TestClaudeCodeSessionUndoneThroughHooks (issue 46): the real Claude
// Code (pinned in clients/), driven by a scripted model, runs a session
// of its own Bash, Write and Edit tools on a project (the undo table's
// fixture: a git repository with a set-uid file, a link, an empty
// directory, extended attributes, a socket): cd, sed -i, rm -rf, mv, a
// heredoc, git checkout -- ., a loop making 300 files, a background
// process, a failing command, a command a deny rule refuses, one an ask
// rule holds back (no one to ask in -p), an Edit Claude Code refuses (of
// a file it has not read), and fsmcp's own fs_write through its MCP
// server in the same session (journaled once, by the server). Once
// without fsmcp's hooks, once with them (fsmcp hooks install
// claude-code, merged into the project's settings that hold the deny
// rule): every tool result the model is sent is the same; with the hooks
// every change is in the project's history under one session label, and
// fsmcp undo DIR --session LABEL gives the tree back byte for byte.
func TestClaudeCodeSessionUndoneThroughHooks(t *testing.T) {
	claude := hostBinary(t, "claude")
	m := modes(t)[0]
	calls := func(root string) [][2]any {
		bash := func(cmd string) [2]any { return [2]any{"Bash", map[string]any{"command": cmd, "description": "step"}} }
		return [][2]any{
			bash("cd tree && sed -i 's/a/A/' a.txt && pwd"),
			bash("rm -rf empty && mv ../f.txt f-moved.txt && ls"),
			bash("cat > notes.md <<'EOF'\nline with 'quotes', $(not expanded) and ünï\nEOF\necho \"done $((1+2))\""),
			bash("cd .. && git checkout -- . && git status --short | head -3"),
			bash("for i in $(seq 1 300); do echo $i > many_$i.txt; done; ls | wc -l"),
			bash("(sleep 0.5; echo bg > bg.txt) >/dev/null 2>&1 &"),
			bash("echo out; echo err >&2; exit 3"),
			bash("touch denied.txt"),
			{"Write", map[string]any{"file_path": filepath.Join(root, "new.txt"), "content": "new\n"}},
			{"Edit", map[string]any{"file_path": filepath.Join(root, "new.txt"), "old_string": "new", "new_string": "edited"}},
			{"Edit", map[string]any{"file_path": filepath.Join(root, "suid.sh"), "old_string": "echo hi", "new_string": "echo HI"}}, // unread: refused
			bash("printf 'piped\\n' | cat; echo $'tab\\there'"),
			bash("rm -f tree/a.txt"), // an ask rule: no one to ask in -p
			{"mcp__fsmcp__fs_write", map[string]any{"file_path": filepath.Join(root, "tree", "via-fsmcp.txt"), "content": "through fsmcp\n"}},
		}
	}
	skip := func(rel string) bool { return rel == "sig" || rel == ".claude" || rel == "." }
	session := func(hooked bool) (root string, results []string, state string, before map[string]string) {
		root = undoFixture(t)
		state = filepath.Join(t.TempDir(), "state")
		home := t.TempDir()
		os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
		write(t, filepath.Join(root, ".claude", "settings.local.json"), `{"permissions": {"deny": ["Bash(touch:*)"], "ask": ["Bash(rm -f:*)"]}}`+"\n")
		env := []string{"PATH=" + m.path, "HOME=" + home, "XDG_STATE_HOME=" + state, "SHELL=/bin/bash",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_ENABLE_TELEMETRY=0", "ANTHROPIC_API_KEY=sk-ant-test-stand-in"}
		if hooked {
			install := exec.Command(binary, "hooks", "install", "claude-code")
			install.Dir = root
			install.Env = append(os.Environ(), env...)
			if out, err := install.CombinedOutput(); err != nil {
				t.Fatalf("fsmcp hooks install claude-code: %v\n%s", err, out)
			}
			var settings map[string]any
			b, _ := os.ReadFile(filepath.Join(root, ".claude", "settings.local.json"))
			if json.Unmarshal(b, &settings) != nil || settings["permissions"] == nil {
				t.Fatalf("the install dropped the project's deny rule:\n%s", b)
			}
		}
		before = treeStateSkip(root, skip)
		model := &hostScript{calls: calls(root)}
		api := httptest.NewServer(model)
		defer api.Close()
		// fsmcp's own server in the same session: its calls are journaled
		// by it, under the same session, and by no hook.
		cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fsmcp": map[string]any{
			"type": "stdio", "command": binary, "args": []string{root}, "alwaysLoad": true}}})
		runHost(t, root, append(env, "ANTHROPIC_BASE_URL="+api.URL), claude, "-p", "Work on the project.",
			"--mcp-config", string(cfg), "--strict-mcp-config",
			"--allowedTools", "Bash,Edit,Write,mcp__fsmcp__fs_write", "--output-format", "json", "--model", "claude-sonnet-4-5")
		return root, model.results(), state, before
	}

	plainRoot, plain, _, _ := session(false)
	root, hooked, state, before := session(true)
	if len(plain) != len(calls(root)) || len(hooked) != len(plain) {
		t.Fatalf("the model got %d results without the hooks, %d with them; it made %d calls", len(plain), len(hooked), len(calls(root)))
	}
	sameResults(t, plainRoot, plain, root, hooked)
	if !strings.Contains(hooked[6], "Exit code 3") || !strings.Contains(hooked[7], "denied") && !strings.Contains(hooked[7], "permission") {
		t.Errorf("the failing and the refused command answered %q and %q", hooked[6], hooked[7])
	}
	if _, err := os.Stat(filepath.Join(root, "tree", "denied.txt")); err == nil {
		t.Error("the command the deny rule refuses ran")
	}

	fsmcp := fsmcpIn(t, state)
	var hist string
	deadline := time.Now().Add(time.Minute)
	for hist = fsmcp("history", root); !strings.Contains(hist, "bg.txt"); hist = fsmcp("history", root) {
		if time.Now().After(deadline) {
			t.Fatalf("the background's change is not in history:\n%s", hist)
		}
		time.Sleep(100 * time.Millisecond)
	}
	label := oneSession(t, hist, "claude-code")
	for _, tool := range []string{"Bash", "Write", "Edit", "git checkout", "many_1.txt", "bg.txt"} {
		if !strings.Contains(hist, tool) {
			t.Errorf("history lacks %q:\n%s", tool, hist)
		}
	}
	if strings.Contains(hist, "denied.txt") || strings.Contains(hist, "suid.sh (") && !strings.Contains(hist, "git checkout") {
		t.Errorf("history lists a refused call:\n%s", hist)
	}
	if n := strings.Count(hist, "via-fsmcp.txt"); n != 1 {
		t.Errorf("history lists fsmcp's own fs_write %d times, want once:\n%s", n, hist)
	}
	if _, err := os.Stat(filepath.Join(root, "tree", "a.txt")); err != nil {
		t.Errorf("the command the ask rule holds back ran: %v", err)
	}
	if n := strings.Count(hist, "  Edit  "); n != 1 {
		t.Errorf("history lists %d Edit calls, want the one that edited:\n%s", n, hist)
	}
	t.Logf("fsmcp undo %s --session %s:\n%s", root, label, fsmcp("undo", root, "--session", label))
	if d := testenv.StateDiff(before, treeStateSkip(root, skip)); d != "" {
		t.Errorf("after the undo:\n%s", d)
	}
}

// treeStateSkip is the tree's state, what skip names left out.
func treeStateSkip(root string, skip func(string) bool) map[string]string {
	return testenv.TreeState(root, skip)
}

// waitFor is a shell loop that waits (up to a minute) until the file at
// path is there and not empty: a command a session left in the
// background writes it, on a machine that may be slow, so a step that
// reads it waits for it rather than sleeping a guessed time.
func waitFor(path string) string {
	return fmt.Sprintf("for i in $(seq 1200); do [ -s %s ] && break; sleep 0.05; done", path)
}

// sameResults fails t for each tool result the model was sent that
// differs between the session without the hooks and the one with them,
// each session's root read as ROOT.
func sameResults(t *testing.T, plainRoot string, plain []string, root string, hooked []string) {
	t.Helper()
	for i := range plain {
		a := strings.ReplaceAll(plain[i], plainRoot, "ROOT")
		b := strings.ReplaceAll(hooked[i], root, "ROOT")
		if a != b {
			t.Errorf("call %d: the model was sent\n%q\nwithout the hooks, and with them\n%q", i+1, a, b)
		}
	}
}

// fsmcpIn runs the fsmcp binary with state as XDG_STATE_HOME and
// returns what it printed; a failure fails t.
func fsmcpIn(t *testing.T, state string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("fsmcp %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
}

// oneSession is the one session label history names for a host's
// session (prefix-HASH); any other count fails t.
func oneSession(t *testing.T, hist, prefix string) string {
	t.Helper()
	labels := map[string]bool{}
	for _, l := range regexp.MustCompile(`session (`+regexp.QuoteMeta(prefix)+`-[0-9a-f]+)`).FindAllStringSubmatch(hist, -1) {
		labels[l[1]] = true
	}
	if len(labels) != 1 {
		t.Fatalf("history names %d sessions, want the one %s session:\n%s", len(labels), prefix, hist)
	}
	for l := range labels {
		return l
	}
	return ""
}

// seenResults are the tool results a stand-in model API was sent, in
// order, as the host sent them.
type seenResults struct {
	mu   sync.Mutex
	seen []string
}

func (s *seenResults) results() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// hostScript stands in for the Messages API for a session of the host's
// own tools: in the conversation that offers Bash, one call a turn
// (toolu_N for call N), and each tool_result recorded, the host's own
// <system-reminder> left out; any other request gets a short text.
type hostScript struct {
	calls [][2]any
	seenResults
}

func (s *hostScript) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, ok := messagesRequest(w, r)
	if !ok {
		return
	}
	ans := &claudeModel{}
	if _, ok := req.tool("Bash"); !ok {
		ans.answer(w, req.Stream, map[string]any{"type": "text", "text": "ok"}, "end_turn")
		return
	}
	results := map[string]string{}
	for _, b := range req.blocks() {
		if b.Type == "tool_result" {
			results[b.ToolUseID] = withoutReminders(toolResultText(b.Content))
		}
	}
	s.mu.Lock()
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
		ans.answer(w, req.Stream, map[string]any{"type": "text", "text": "Done."}, "end_turn")
		return
	}
	c := s.calls[next]
	ans.answer(w, req.Stream, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", next+1), "name": c[0], "input": c[1]}, "tool_use")
}

// withoutReminders is a tool result without the host's own
// <system-reminder> blocks (its context, not the tool's answer).
func withoutReminders(s string) string {
	if i := strings.Index(s, "<system-reminder>"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, "\n")
}
