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
	var b strings.Builder
	terminalNote(&b, "/opt/fsmcp")
	out := b.String()
	for _, want := range []string{"stdin/stdout", "claude mcp add fsmcp -- /opt/fsmcp", `"command": "/opt/fsmcp"`, "--listen"} {
		if !strings.Contains(out, want) {
			t.Errorf("note lacks %q:\n%s", want, out)
		}
	}
}
