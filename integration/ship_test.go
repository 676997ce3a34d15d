package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMakeRunStdoutIsMCPOnly pins that `make run` keeps stdout for the MCP
// stream: make's command lines and the build's output go to stderr, so a
// host that starts `make run` reads nothing but JSON-RPC.
func TestMakeRunStdoutIsMCPOnly(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("SKIPPED: make is not installed; `make run` is not checked")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // only bounds a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "run", "BIN="+filepath.Join(t.TempDir(), "fsmcp"))
	cmd.Dir = ".."
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"make-run","version":"1"}}}` + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make run: %v\n%s", err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 1 {
		t.Fatalf("make run printed %d lines on stdout, want the one initialize response:\n%s", len(lines), out)
	}
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			ServerInfo struct{ Name string } `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &resp); err != nil || resp.ID != 1 || resp.Result.ServerInfo.Name != "fsmcp" {
		t.Fatalf("stdout is not the initialize response (%v): %s", err, out)
	}
	if !strings.Contains(stderr.String(), "go build") {
		t.Errorf("the build's command line is not on stderr:\n%s", stderr.Bytes())
	}
}

// TestMakeHelpListsTargets pins `make help`: every `## target:` comment of
// the Makefile appears as a target with its description.
func TestMakeHelpListsTargets(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("SKIPPED: make is not installed; `make help` is not checked")
	}
	cmd := exec.Command("make", "--no-print-directory", "help")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make help: %v", err)
	}
	for _, want := range []string{"build", "run", "test", "lint", "release", "image", "help"} {
		found := false
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == want {
				found = true
			}
		}
		if !found {
			t.Errorf("make help does not list %q:\n%s", want, out)
		}
	}
}
