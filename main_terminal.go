package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal: someone typed fsmcp at a
// prompt, where nobody speaks JSON-RPC.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// terminalNote tells a person who ran fsmcp at a prompt what it is waiting
// for, instead of a silent cursor. The host lines name this binary and the
// first root when there is one, ready to paste: the JSON one is encoded,
// so a Windows path comes out with its backslashes escaped.
func terminalNote(w io.Writer, exe string, roots []string) {
	dir := "/path/to/project"
	if len(roots) > 0 {
		dir = roots[0]
	}
	fmt.Fprintf(w, `fsmcp speaks MCP (JSON-RPC) on stdin/stdout: an agent host starts it, not a person.
Add it to a host, e.g. Claude Code:
    claude mcp add fsmcp -- %s %s
or a JSON config (Claude Desktop, Cursor; VS Code's key is "servers"):
    "mcpServers": {"fsmcp": {"command": %s, "args": [%s]}}
For HTTP clients run: fsmcp --listen 127.0.0.1:8080 DIR. Ctrl-D or Ctrl-C ends it; fsmcp --help lists the flags.
`, shellQuote(exe), shellQuote(dir), jsonString(exe), jsonString(dir))
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// path characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:,=@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// executable is the path a host config should name: the absolute path of
// this binary when the OS knows it.
func executable() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return "fsmcp"
}
