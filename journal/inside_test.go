package journal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckRootsFindsTheJournalInside: a journal directory inside a root
// is refused, whether the root is its parent, the file system's root
// (fsmcp /: "/"+"/" was the prefix tried before, so / held nothing) or
// given with a trailing separator; a sibling sharing the root's prefix
// does not hold it.
func TestCheckRootsFindsTheJournalInside(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	if err := os.MkdirAll(filepath.Join(root, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(root+"-evil", 0o755); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Dir: filepath.Join(root, "state", "journal")}, nil)
	defer s.Close()
	sep := string(filepath.Separator)
	volume := filepath.VolumeName(base) + sep
	for _, roots := range [][]string{{root}, {root + sep}, {volume}, {base}} {
		if err := s.CheckRoots(roots); !errors.Is(err, ErrInside) {
			t.Errorf("CheckRoots(%q) = %v; want the journal found inside", roots, err)
		}
	}
	if err := s.CheckRoots([]string{root + "-evil", filepath.Join(root, "other")}); err != nil {
		t.Errorf("CheckRoots with a sibling sharing the prefix: %v", err)
	}
}
