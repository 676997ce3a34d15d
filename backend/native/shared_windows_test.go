package native

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWinPathScannerSharesDeletion: a file or directory the native scanner
// has open can still be deleted by another program (an editor's save
// replaces it), as with ripgrep; with os.Open Windows refuses that. Also
// past 260 characters. Wine does not enforce the sharing mode on
// deletion, so there the test shows only that openShared opens, reads
// and lists, long names included (make test-windows runs it under Wine;
// no t.TempDir, whose cleanup Wine cannot do).
func TestWinPathScannerSharesDeletion(t *testing.T) {
	dir, err := os.MkdirTemp("", "fsmcp-shared-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(dir)
	long := filepath.Join(dir, strings.Repeat("d", 120), strings.Repeat("e", 120))
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(filepath.Dir(long))
	for _, p := range []string{filepath.Join(dir, "f.txt"), filepath.Join(long, "f.txt")} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := openShared(p)
		if err != nil {
			t.Fatalf("openShared(%d characters): %v", len(p), err)
		}
		if err := os.Remove(p); err != nil {
			t.Errorf("removing a file the scanner holds open (%d characters): %v", len(p), err)
		}
		f.Close()
	}
	d, err := openShared(long)
	if err != nil {
		t.Fatal(err)
	}
	if names, err := d.Readdirnames(-1); err != nil || len(names) != 0 {
		t.Errorf("listing through openShared: %v, %v", names, err)
	}
	if err := os.Remove(long); err != nil {
		t.Errorf("removing a directory the scanner holds open: %v", err)
	}
	d.Close()
}
