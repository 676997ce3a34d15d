package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowsPathCaseIsTheFileSystems pins that with a root spelled one
// way, the same directory spelled in another case (the drive letter too)
// is inside it, and files below it are read through the root.
func TestWindowsPathCaseIsTheFileSystems(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "crlf.txt"), []byte("a\r\nb\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spelled := range []string{root, strings.ToUpper(root), strings.ToLower(root)} {
		sb, errs := New([]string{spelled})
		if len(errs) > 0 {
			t.Fatalf("New(%q): %v", spelled, errs)
		}
		defer sb.Close()
		for _, p := range []string{
			strings.ToLower(root) + `\crlf.txt`,
			strings.ToUpper(root) + `\CRLF.TXT`,
			strings.ToLower(root[:1]) + root[1:] + `\crlf.txt`,
			strings.ToUpper(root[:1]) + root[1:] + `\crlf.txt`,
		} {
			rp, err := sb.Resolve(p)
			if err != nil {
				t.Errorf("root %s: Resolve(%s): %v, want inside", spelled, p, err)
				continue
			}
			if _, err := rp.Root.FS().Stat(rp.Rel); err != nil {
				t.Errorf("root %s: stat %s through the root: %v", spelled, p, err)
			}
		}
		if sb.Contains(root + `x\crlf.txt`) {
			t.Errorf("root %s: a sibling spelled with the root as prefix is inside", spelled)
		}
	}
}
