package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The agent hosts users run (Claude Code, Codex, Gemini CLI, pinned in
// clients/) are driven by a scripted model: a loopback stand-in for each
// host's model API that asks, turn by turn, for the calls an agent makes
// with default arguments, and records each tool result it is sent. The
// test then holds every result to what fsmcp answers a plain MCP client
// that names itself as the host does: the host must pass it to the model
// whole, its paging note included, which it does only when the answer
// fits the host's own limit (docs/clients.md, "Answer size per host").

// hostCall is one turn of a scripted model: an fsmcp tool called with the
// arguments an agent would send, or (Claude Code) a ToolSearch query
// that must find a deferred fsmcp tool.
type hostCall struct {
	tool string
	args map[string]any
	note string // what the answer must say about the rest (a big answer is cut)

	search string // a ToolSearch query instead of a call
	finds  string // the fsmcp tool the search must return
}

// hostFixture is a project tree big enough that every default answer is
// cut, the calls an agent makes on it, and what fsmcp answers each call.
type hostFixture struct {
	root  string
	calls []hostCall
	want  []string // by call; "" for a search
}

// newHostFixture builds the tree and asks fsmcp (started with args before
// the root) every call as a plain MCP client named client, version, would.
func newHostFixture(t *testing.T, m mode, client, version string, args ...string) *hostFixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var ascii, greek strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&ascii, "line %04d: the quick brown fox jumps over it\n", i+1)
		fmt.Fprintf(&greek, "γραμμή %04d: η γρήγορη καφέ αλεπού πηδά πάνω του\n", i+1)
	}
	write(t, filepath.Join(root, "big.txt"), ascii.String())
	write(t, filepath.Join(root, "greek.txt"), greek.String())
	for i := range 1500 {
		write(t, filepath.Join(root, "pkg", fmt.Sprintf("d%02d", i%40), fmt.Sprintf("file%04d.txt", i)), "fox\n")
	}
	f := &hostFixture{root: root, calls: []hostCall{
		{tool: "fs_read", args: map[string]any{"file_path": filepath.Join(root, "big.txt")}, note: "to read on)"},
		{tool: "fs_grep", args: map[string]any{"pattern": "quick brown", "path": root, "output_mode": "content"}, note: "for more)"},
		{tool: "fs_glob", args: map[string]any{"pattern": "**/*.txt", "path": root}, note: "for more)"},
		{tool: "fs_list", args: map[string]any{"path": filepath.Join(root, "pkg"), "depth": 2}, note: "left out;"},
		{tool: "fs_read", args: map[string]any{"file_path": filepath.Join(root, "greek.txt")}, note: "to read on)"},
	}}
	f.want = f.answers(t, m, client, version, args...)
	for i, c := range f.calls {
		if utf8.RuneCountInString(f.want[i]) < 20000 || !strings.Contains(f.want[i], c.note) {
			t.Fatalf("%s's answer is %d characters without %q; the test wants a big, cut answer:\n%.400s", c.tool, len(f.want[i]), c.note, f.want[i])
		}
	}
	return f
}

// answers is what fsmcp (args before the root) answers each call of f to
// a client named name, version; "" for a search.
func (f *hostFixture) answers(t *testing.T, m mode, name, version string, args ...string) []string {
	t.Helper()
	cs := connectStdioAs(t, m, &mcp.Implementation{Name: name, Version: version}, append(args, f.root)...)
	out := make([]string, len(f.calls))
	for i, c := range f.calls {
		if c.search != "" {
			continue
		}
		out[i] = mustCall(t, cs, c.tool, c.args)
	}
	return out
}

// withSearches puts a search before each call of a tool in deferred, and
// the searches of extra after all, for a host that defers tools.
func (f *hostFixture) withSearches(deferred map[string]string, extra ...hostCall) {
	var calls []hostCall
	var want []string
	for i, c := range f.calls {
		if q, ok := deferred[c.tool]; ok {
			calls = append(calls, hostCall{search: q, finds: c.tool})
			want = append(want, "")
		}
		calls = append(calls, c)
		want = append(want, f.want[i])
	}
	for _, c := range extra {
		calls = append(calls, c)
		want = append(want, "")
	}
	f.calls, f.want = calls, want
}

// check holds what the model received for each call (got, by call) to
// what fsmcp answers: whole, byte for byte.
func (f *hostFixture) check(t *testing.T, host string, got []string) {
	t.Helper()
	if len(got) != len(f.calls) {
		t.Fatalf("the model received %d tool results, want %d", len(got), len(f.calls))
	}
	for i, c := range f.calls {
		if c.search != "" {
			continue
		}
		if got[i] != f.want[i] {
			t.Errorf("%s: %s's answer reached the model as %d bytes, fsmcp answers %d; the model saw:\n%.600s\n…\n%s", c.tool, host, len(got[i]), len(f.want[i]), got[i], got[i][max(0, len(got[i])-300):])
			continue
		}
		t.Logf("%s %v: %d characters (%d bytes) reached the model whole, ending %q", c.tool, c.args, utf8.RuneCountInString(got[i]), len(got[i]), lastLine(got[i]))
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// connectStdioAs is connectStdio with the client named as info.
func connectStdioAs(t *testing.T, m mode, info *mcp.Implementation, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "PATH="+m.path)
	cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := mcp.NewClient(info, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// hostBinary is a host CLI installed in clients/ (`make clients`); the
// test skips where it is not.
func hostBinary(t *testing.T, name string) string {
	t.Helper()
	clientsNode(t) // skips where node or the pinned clients are missing
	bin, err := filepath.Abs(filepath.Join("clients", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("SKIPPED: %s is not installed in clients/ (`make clients`): %v", name, err)
	}
	return bin
}

// runHost runs a host CLI to its end: its model is a stand-in, so it ends
// when the script does; the timeout only bounds a hang.
func runHost(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = &testLog{t: t, prefix: filepath.Base(name) + ": "}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(name), err, out)
	}
	return string(out)
}
