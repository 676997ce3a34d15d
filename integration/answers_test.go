package integration

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 20's answers an agent can use whole: each test pins one item
// through the built binary.

// TestNumericArgumentsOutOfRange pins item 2: read_text_file {"head": 1e300}
// answered "" (the float overflowed int). A number past any count is the
// whole file, as the original's loops take it; where a number cannot be
// taken (a 33-bit uid), the answer is an error, never a wrong result.
func TestNumericArgumentsOutOfRange(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	a := filepath.Join(tr.root, "a.txt")
	whole := "alpha\n" + needle + " one\nbeta\n"

	ref := connectStdio(t, m, "--profile", "reference", tr.root)
	for _, args := range []map[string]any{{"head": 1e300}, {"tail": 1e300}, {"head": 9.3e18}, {"tail": 1.8e19}} {
		args["path"] = a
		if got := mustCall(t, ref, "read_text_file", args); strings.TrimSuffix(got, "\n") != strings.TrimSuffix(whole, "\n") {
			t.Errorf("read_text_file %v = %q, want the whole file", args, got)
		}
	}
	if got := mustCall(t, ref, "read_text_file", map[string]any{"path": a, "head": -1e300}); got != "" {
		t.Errorf("read_text_file head -1e300 = %q, want the original's empty answer", got)
	}

	fs := connectStdio(t, m, tr.root)
	if got := mustCall(t, fs, "fs_read", map[string]any{"file_path": a, "limit": 9.2e18}); !strings.Contains(got, "3\tbeta") {
		t.Errorf("fs_read limit 9.2e18 = %q", got)
	}
	mustFail(t, fs, "fs_read", map[string]any{"file_path": a, "offset": 1e300}, "offset")
	if got := mustCall(t, fs, "fs_grep", map[string]any{"pattern": needle, "offset": 9.2e18, "head_limit": 9.2e18}); !strings.Contains(got, "past the end") {
		t.Errorf("fs_grep offset 9.2e18 = %q, want the offset past the end", got)
	}
	if got := mustCall(t, fs, "fs_list", map[string]any{"path": tr.root, "depth": 9.2e18}); !strings.Contains(got, "deeper/d.md") {
		t.Errorf("fs_list depth 9.2e18 = %q", got)
	}
	if got := mustCall(t, fs, "fs_bash", map[string]any{"command": "echo ran", "timeout": 9.2e18}); got != "ran" {
		t.Errorf("fs_bash timeout 9.2e18 = %q, want the command run under the longest timeout", got)
	}

	fm := connectStdio(t, m, "--profile", "filesystem-mcp", tr.root)
	got, _ := call(t, fm, "chown_items", map[string]any{"paths": []string{"a.txt"}, "uid": 4294967296, "gid": -1})
	if !strings.Contains(got, "4294967295") {
		t.Errorf("chown_items uid 2^32 = %q, want it refused (the system call would cut it to 0, root)", got)
	}

	lc := connectStdio(t, m, "--profile", "localcowork", tr.root)
	if got := mustCall(t, lc, "filesystem.search_files", map[string]any{"path": tr.root, "pattern": "*.txt", "max_results": 9.2e18}); !strings.Contains(got, "a.txt") {
		t.Errorf("search_files max_results 9.2e18 = %q", got)
	}
}
