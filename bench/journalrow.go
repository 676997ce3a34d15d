package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// journalRow is issue 24's cost row: small fs_edit and fs_write calls of a
// 4 KiB file through the go-sdk client over stdio, against one server with
// the change journal on and one with it off (each its own state
// directory), interleaved, medians of n calls each; the ratio is what the
// journal costs a small change.
func journalRow(bin string, n int) {
	dir, err := os.MkdirTemp("", "fsmcp-bench-journal-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: journal:", err)
		return
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "bench: journal:", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	connect := func(mode string) (*mcp.ClientSession, error) {
		cmd := exec.Command(bin, "--journal", mode, "--index", "off", root)
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state-"+mode))
		return mcp.NewClient(&mcp.Implementation{Name: "fsmcp-bench", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	}
	sessions := map[string]*mcp.ClientSession{}
	for _, mode := range []string{"on", "off"} {
		cs, err := connect(mode)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: journal: connect:", err)
			return
		}
		defer cs.Close()
		sessions[mode] = cs
	}
	body := strings.Repeat("a line of a small source file, about sixty bytes long.....\n", 68)
	times := map[string][]time.Duration{}
	for i := range n {
		for _, mode := range []string{"on", "off"} {
			name := filepath.Join(root, "f-"+mode+".txt")
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"fs_write", map[string]any{"file_path": name, "content": fmt.Sprintf("v%d\n%s", i, body)}},
				{"fs_edit", map[string]any{"file_path": name, "old_string": fmt.Sprintf("v%d\n", i), "new_string": fmt.Sprintf("edited %d\n", i)}},
			} {
				t0 := time.Now()
				res, err := sessions[mode].CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				if err != nil || res.IsError {
					fmt.Fprintln(os.Stderr, "bench: journal:", c.tool, err, textOf(res))
					return
				}
				times[c.tool+" "+mode] = append(times[c.tool+" "+mode], time.Since(t0))
			}
		}
	}
	for _, tool := range []string{"fs_write", "fs_edit"} {
		on, off := median(times[tool+" on"]), median(times[tool+" off"])
		fmt.Printf("journal: %s of a 4 KiB file (stdio, median of %d): journal on %.2f ms, off %.2f ms (%.2fx)\n",
			tool, n, ms(on), ms(off), float64(on)/float64(off))
	}
}
