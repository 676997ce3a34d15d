//go:build windows

package windows

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWhatTheServerSays: on Windows, where fs_bash is not served, the
// initialize instructions do not name it or what it reaches (/usr), and
// ask for paths with their drive letter; fs_list prints relative paths
// with \ as every other tool does, and its description says so.
func TestWhatTheServerSays(t *testing.T) {
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		tr := newTree(t)
		cs := connect(tr.root)
		got := cs.InitializeResult().Instructions
		if strings.Contains(got, "fs_bash") || strings.Contains(got, "/usr") || !strings.Contains(got, tr.root) || !strings.Contains(got, "drive letter") {
			t.Errorf("instructions = %q", got)
		}
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools.Tools {
			switch tool.Name {
			case "fs_bash":
				t.Error("fs_bash is listed")
			case "fs_list":
				if !strings.Contains(tool.Description, `directories end in \,`) {
					t.Errorf("fs_list's description: %q", tool.Description)
				}
			}
		}
		out := ok(t, cs, "fs_list", map[string]any{"path": tr.root, "depth": 3})
		for _, want := range []string{`  sub\`, `  sub\b.txt`, `  long\aaaaaaaaaa`, `  ünï cødé\naïve file.txt`} {
			if !strings.Contains(out, want) {
				t.Errorf("fs_list = %q, want a line with %q", out, want)
			}
		}
		if strings.Contains(out, "/") {
			t.Errorf("fs_list = %q, with a /", out)
		}
	})
}
