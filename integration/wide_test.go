package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWideDirectoryAnswersWithinTimeout: a directory of 200,000 entries
// (an agent can make one with one fs_bash call) gets a bounded answer from
// every tool that walks it, in both backends, and the server goes on
// serving. The answers are capped by --max-results, never the tree.
func TestWideDirectoryAnswersWithinTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 200,000-entry directory")
	}
	root := t.TempDir()
	wide := filepath.Join(root, "wide")
	if err := os.Mkdir(wide, 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 200_000
	for i := range n {
		f, err := os.Create(filepath.Join(wide, fmt.Sprintf("f%06d.txt", i)))
		if err != nil {
			t.Fatal(err)
		}
		if i%50_000 == 0 {
			f.WriteString("needle\n")
		}
		f.Close()
	}
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			cs := connectStdio(t, m, "--timeout", "20s", "--max-results", "100", root)
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"fs_list", map[string]any{"path": wide}},
				{"fs_glob", map[string]any{"pattern": "wide/*.txt"}},
				{"fs_grep", map[string]any{"pattern": "needle"}},
			} {
				out, _ := call(t, cs, c.tool, c.args) // a protocol error or a hang fails here
				if lines := strings.Count(out, "\n"); lines > 200 {
					t.Errorf("%s answered %d lines; --max-results is 100", c.tool, lines)
				}
			}
			if out := mustCall(t, cs, "fs_grep", map[string]any{"pattern": "needle", "output_mode": "count"}); !strings.Contains(out, "f000000.txt") {
				t.Errorf("server did not go on serving the wide tree: %q", out)
			}
		})
	}
}
