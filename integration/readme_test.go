package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostEntry is one server of a host config: stdio (command, args) or
// HTTP (url, headers).
type hostEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// The per-server opt-outs of a host that defers tools: Claude Code's
	// alwaysLoad, Copilot CLI's deferTools (with its tools list).
	AlwaysLoad *bool    `json:"alwaysLoad"`
	DeferTools string   `json:"deferTools"`
	Tools      []string `json:"tools"`
}

// TestReadmeHostSnippetsWork takes every JSON config, `claude mcp add` and
// `claude mcp add-json` line and TOML table of docs/clients.md's "Hosts
// and clients" section, checks its shape is the one its host documents
// (mcpServers, or VS Code's servers with a type; Claude Code's alwaysLoad
// true, Copilot CLI's deferTools "never" with its tools list), and runs
// it: the stdio entries start fsmcp with the snippet's arguments (paths
// swapped for a temp dir) and the HTTP entries connect with the snippet's
// header (placeholders swapped for the token).
func TestReadmeHostSnippetsWork(t *testing.T) {
	readme, err := os.ReadFile("../docs/clients.md")
	if err != nil {
		t.Fatal(err)
	}
	section := between(t, string(readme), "# Hosts and clients", "\n## ")
	m := modes(t)[0]
	dir := t.TempDir()

	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) < 5 {
		t.Fatalf("found %d JSON snippets, want Claude Desktop's, Copilot CLI's, Gemini CLI's, Cursor's and VS Code's", len(blocks))
	}
	for i, b := range blocks {
		var cfg struct {
			MCPServers map[string]hostEntry `json:"mcpServers"`
			Servers    map[string]hostEntry `json:"servers"` // VS Code
		}
		if err := json.Unmarshal([]byte(b[1]), &cfg); err != nil {
			t.Fatalf("snippet is not JSON (%v):\n%s", err, b[1])
		}
		for name, e := range cfg.Servers {
			if e.Type != "stdio" && e.Type != "http" {
				t.Errorf("VS Code server %s has type %q; VS Code requires stdio or http", name, e.Type)
			}
		}
		for name, e := range merge(cfg.MCPServers, cfg.Servers) {
			if e.DeferTools != "" && (e.DeferTools != "never" || len(e.Tools) == 0) {
				t.Errorf("%s: deferTools %q with tools %v; Copilot CLI's opt-out is \"never\", beside its tools list", name, e.DeferTools, e.Tools)
			}
			t.Run(fmt.Sprintf("snippet%d/%s", i+1, name), func(t *testing.T) { runEntry(t, m, dir, e) })
		}
	}
	if !strings.Contains(section, `"deferTools": "never"`) {
		t.Error(`no Copilot CLI snippet with "deferTools": "never"`)
	}

	// claude mcp add-json NAME 'JSON': the entry with Claude Code's opt-out.
	addJSON := regexp.MustCompile("`claude mcp add-json fsmcp '([^']+)'`").FindStringSubmatch(section)
	if addJSON == nil {
		t.Fatal("no `claude mcp add-json fsmcp '...'` line in the section")
	}
	var aj hostEntry
	if err := json.Unmarshal([]byte(addJSON[1]), &aj); err != nil || aj.Type != "stdio" || aj.AlwaysLoad == nil || !*aj.AlwaysLoad {
		t.Errorf("claude mcp add-json's entry is not a stdio server with alwaysLoad true: %v %+v", err, aj)
	}
	runEntry(t, m, dir, aj)

	// A Codex TOML table: [mcp_servers.fsmcp] with command and args.
	toml := regexp.MustCompile("```toml\n" + `\[mcp_servers\.fsmcp\]\ncommand = ("[^"\n]*")\nargs = (\[[^\]\n]*\])\n` + "```").FindStringSubmatch(section)
	if toml == nil {
		t.Fatal("no Codex ```toml [mcp_servers.fsmcp] table with command and args in the section")
	}
	var te hostEntry
	if json.Unmarshal([]byte(toml[1]), &te.Command) != nil || json.Unmarshal([]byte(toml[2]), &te.Args) != nil {
		t.Fatalf("the TOML table's command %s or args %s is not a plain string and array", toml[1], toml[2])
	}
	runEntry(t, m, dir, te)

	// The Windows line is a fragment of the same object: it must be JSON
	// once wrapped in braces.
	win := regexp.MustCompile("`(\"command\": \"C:[^`]*)`").FindStringSubmatch(section)
	if win == nil {
		t.Fatal("no Windows command line in the section")
	}
	var e hostEntry
	if err := json.Unmarshal([]byte("{"+win[1]+"}"), &e); err != nil || !strings.HasPrefix(e.Command, `C:\Users`) {
		t.Errorf("the Windows line is not valid JSON with a Windows path: %v (%q)", err, e.Command)
	}

	// claude mcp add NAME -- COMMAND ARGS...: run what follows the --.
	add := regexp.MustCompile("`claude mcp add fsmcp -- (\\S+) ([^`]+)`").FindStringSubmatch(section)
	if add == nil {
		t.Fatal("no `claude mcp add fsmcp -- ...` line in the section")
	}
	runEntry(t, m, dir, hostEntry{Command: add[1], Args: strings.Fields(add[2])})
}

func between(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	if i < 0 {
		t.Fatalf("docs/clients.md has no %q", from)
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		s = s[:j]
	}
	return s
}

func merge(a, b map[string]hostEntry) map[string]hostEntry {
	out := map[string]hostEntry{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// placeholder is a config variable (${env:X}, ${input:x}, ${workspaceFolder}).
var placeholder = regexp.MustCompile(`\$\{[^}]+\}`)

// runEntry starts what a host would start for e, connects as it would and
// lists the tools.
func runEntry(t *testing.T, m mode, dir string, e hostEntry) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	var transport mcp.Transport
	switch {
	case e.Command != "":
		snippetArgs := e.Args
		switch {
		case e.Command == "npx":
			// npx -y fsmcp ARGS runs the fsmcp binary with ARGS (the npm
			// package itself is pinned by TestNPMPackageInstallsOfflineAndServes).
			if len(snippetArgs) < 2 || snippetArgs[0] != "-y" || snippetArgs[1] != "fsmcp" {
				t.Fatalf("npx %v does not run the fsmcp package (want npx -y fsmcp ...)", snippetArgs)
			}
			snippetArgs = snippetArgs[2:]
		case !strings.HasSuffix(e.Command, "fsmcp"):
			t.Fatalf("command %q does not run fsmcp", e.Command)
		}
		args := make([]string, len(snippetArgs))
		for i, a := range snippetArgs {
			if strings.HasPrefix(a, "/") || placeholder.MatchString(a) {
				a = dir // the user's project
			}
			args[i] = a
		}
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), "PATH="+m.path)
		cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
		transport = &mcp.CommandTransport{Command: cmd}
	case e.URL != "":
		auth := e.Headers["Authorization"]
		if !strings.HasPrefix(auth, "Bearer ") {
			t.Fatalf("headers %v carry no Authorization: Bearer", e.Headers)
		}
		const token = "readme-token"
		url, _ := startHTTP(t, m, "--auth-token", token, dir)
		if !strings.HasSuffix(e.URL, "/mcp") {
			t.Fatalf("url %q is not fsmcp's /mcp endpoint", e.URL)
		}
		hc := &http.Client{Transport: header{"Authorization", placeholder.ReplaceAllString(auth, token)}}
		transport = &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}
	default:
		t.Fatalf("entry %+v has neither command nor url", e)
	}
	cs, err := newClient().Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
}

// header adds one header to every request, as a host config's headers do.
type header struct{ name, value string }

func (h header) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}
