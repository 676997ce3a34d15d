package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowsRowsInTheSystemsForm pins that a catalog row names its file
// as Windows does (C:\...\t\sub\a.txt), not C:\\...\\t/sub/a.txt.
func TestWindowsRowsInTheSystemsForm(t *testing.T) {
	root, sb := newSandbox(t)
	p := filepath.Join(root, "t", "sub", "a.txt")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "cat.tsv")
	if _, err := Create(context.Background(), resolve(t, sb, filepath.Join(root, "t")), resolve(t, sb, out), Options{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], p+"\t") {
		t.Errorf("catalog:\n%s\nwant one row for %s", data, p)
	}
}
