package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplaceAllGrowthRefusedInOneSentence: replace_all of "x" by 20,000
// "Y"s in a 200 KB file asks for 4 GB; fs_edit, reference edit_file and
// filesystem-mcp replace_content refuse it in one sentence (the size is
// computed before the result is built), the file is unchanged and the
// server still answers.
func TestReplaceAllGrowthRefusedInOneSentence(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(root, "x.txt")
	orig := strings.Repeat("x", 200_000)
	write(t, name, orig)
	huge := strings.Repeat("Y", 20_000)
	m := mode{"path", os.Getenv("PATH")}
	sentence := "the result would be 4000000000 bytes, over the 10485760-byte limit (--max-file-size); nothing was changed"

	cs := connectStdio(t, m, root)
	mustFail(t, cs, "fs_edit", map[string]any{"file_path": name, "old_string": "x", "new_string": huge, "replace_all": true}, sentence)
	mustCall(t, cs, "fs_list", map[string]any{"path": root})

	fm := connectStdio(t, m, "--profile", "filesystem-mcp", "--allowed-dir", root)
	out := mustCall(t, fm, "replace_content", map[string]any{"paths": []any{"x.txt"}, "operations": []any{map[string]any{"search": "x", "replace": huge}}})
	if !strings.Contains(out, sentence) {
		t.Fatalf("replace_content: %s", out)
	}
	if got := readFile(t, name); got != orig {
		t.Fatalf("the file changed (%d bytes)", len(got))
	}
}
