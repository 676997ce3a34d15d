package main

import (
	"os"
	"strings"
	"testing"

	"github.com/creack/pty"
)

func TestIsTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty here: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if !isTerminal(tty) {
		t.Error("a pty is not seen as a terminal")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if isTerminal(r) {
		t.Error("a pipe is seen as a terminal")
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Error("the null device is seen as a terminal")
	}
}

func TestTerminalNote(t *testing.T) {
	for _, c := range []struct {
		exe   string
		roots []string
		want  []string
	}{
		{"/opt/fsmcp", nil, []string{"stdin/stdout", "claude mcp add fsmcp -- /opt/fsmcp /path/to/project", `"command": "/opt/fsmcp", "args": ["/path/to/project"]`, "--listen"}},
		{"/opt/fsmcp", []string{"/home/me/my project"}, []string{`claude mcp add fsmcp -- /opt/fsmcp '/home/me/my project'`, `"args": ["/home/me/my project"]`}},
		{`C:\Users\me\fsmcp.exe`, []string{`C:\work`}, []string{`"command": "C:\\Users\\me\\fsmcp.exe", "args": ["C:\\work"]`}},
	} {
		var b strings.Builder
		terminalNote(&b, c.exe, c.roots)
		out := b.String()
		for _, want := range c.want {
			if !strings.Contains(out, want) {
				t.Errorf("note lacks %q:\n%s", want, out)
			}
		}
	}
}
