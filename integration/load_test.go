package integration

import (
	"strings"
	"testing"
)

// TestBracePatternsAreBoundedBeforeMatching pins issue 18 item 12: {a,a}
// twenty-four times over took 15.8 s as an fs_list filter, 6.4 s as an
// fs_glob pattern under --timeout 1s, and seconds of CPU per event as a
// watch pattern. Every glob a client gives is refused with one sentence
// before a path is matched; a pattern within the bound still works.
func TestBracePatternsAreBoundedBeforeMatching(t *testing.T) {
	bomb := strings.Repeat("{a,a}", 24) + "b"
	const want = "stands for more than 256 patterns"
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			tr := newTree(t)
			cs := connectStdio(t, m, "--timeout", "1s", tr.root)
			mustFail(t, cs, "fs_glob", map[string]any{"pattern": "**/" + bomb, "path": tr.root}, want)
			mustFail(t, cs, "fs_list", map[string]any{"path": tr.root, "depth": 5, "filter": bomb}, want)
			mustFail(t, cs, "fs_grep", map[string]any{"pattern": "x", "path": tr.root, "glob": bomb}, want)
			mustFail(t, cs, "fs_watch", map[string]any{"path": tr.root, "patterns": []string{bomb}}, want)
			ok := strings.Repeat("{a,a}", 8) + ".txt"
			if out := mustCall(t, cs, "fs_glob", map[string]any{"pattern": "**/" + ok, "path": tr.root}); strings.Contains(out, "partial") {
				t.Fatalf("fs_glob within the bound: %s", out)
			}
		})
	}
}
