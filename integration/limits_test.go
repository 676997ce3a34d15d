package integration

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMaxOutputBoundsEveryTool: with a small --max-output every tool's
// answer stays within it and says it was cut and how to go on.
func TestMaxOutputBoundsEveryTool(t *testing.T) {
	tr := newTree(t)
	var big strings.Builder
	for i := range 500 {
		fmt.Fprintf(&big, "line %d %s with some padding text\n", i, needle)
	}
	write(t, tr.path("big.txt"), big.String())
	const maxOut = 2000
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect("--max-output", fmt.Sprint(maxOut), tr.root)
		for _, c := range []struct {
			tool string
			args map[string]any
			hint string
		}{
			{"fs_read", map[string]any{"file_path": tr.path("big.txt")}, "offset="},
			{"fs_grep", map[string]any{"pattern": needle, "output_mode": "content"}, "offset"},
			{"fs_bash", map[string]any{"command": "cat big.txt"}, "truncated"},
		} {
			out := mustCall(t, cs, c.tool, c.args)
			if n := utf8.RuneCountInString(out); n > maxOut+300 {
				t.Errorf("%s: %d characters with --max-output %d", c.tool, n, maxOut)
			}
			if !strings.Contains(out, c.hint) {
				t.Errorf("%s: the cut answer does not say how to go on (%q):\n%s", c.tool, c.hint, out[max(0, len(out)-300):])
			}
		}
	})
}

// TestLimitsFromEnvironment: FSMCP_<NAME> sets a limit; the flag wins.
func TestLimitsFromEnvironment(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	cmd := exec.Command(binary, tr.root)
	cmd.Env = append(os.Environ(), "PATH="+m.path, "FSMCP_MAX_FILE_SIZE=10")
	ctx := t.Context()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mustFail(t, cs, "fs_edit", map[string]any{"file_path": tr.path("a.txt"), "old_string": "alpha", "new_string": "ALPHA"}, "over the 10-byte limit")

	cmd = exec.Command(binary, "--max-file-size", "1MiB", tr.root)
	cmd.Env = append(os.Environ(), "PATH="+m.path, "FSMCP_MAX_FILE_SIZE=10")
	cs2, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	mustCall(t, cs2, "fs_edit", map[string]any{"file_path": tr.path("a.txt"), "old_string": "alpha", "new_string": "ALPHA"})
}
