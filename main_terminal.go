package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal: someone typed fsmcp at a
// prompt, where nobody speaks JSON-RPC.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// terminalNote tells a person who ran fsmcp at a prompt what it is waiting
// for, instead of a silent cursor.
func terminalNote(w io.Writer, exe string) {
	fmt.Fprintf(w, `fsmcp speaks MCP (JSON-RPC) on stdin/stdout: an agent host starts it, not a person.
Add it to a host, e.g. Claude Code:
    claude mcp add fsmcp -- %[1]s /path/to/project
or a JSON config (Claude Desktop, Cursor):
    "mcpServers": {"fsmcp": {"command": "%[1]s", "args": ["/path/to/project"]}}
For HTTP clients run: fsmcp --listen 127.0.0.1:8080 DIR. Ctrl-D or Ctrl-C ends it; fsmcp --help lists the flags.
`, exe)
}

// executable is the path a host config should name: the absolute path of
// this binary when the OS knows it.
func executable() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return "fsmcp"
}
