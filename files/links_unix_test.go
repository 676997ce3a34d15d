//go:build unix

package files

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsmcp/fsmcp/fault"
)

// TestChmodChownRefuseAFileWithHardLinks: a hard link in a root to a file
// outside shares its inode; chmod and chown of it are refused and the
// outside file keeps its mode and owner. A file with one link, and a
// directory, still change.
func TestChmodChownRefuseAFileWithHardLinks(t *testing.T) {
	root, outside, sb := trashTree(t)
	secret := filepath.Join(outside, "secret.txt")
	os.Chmod(secret, 0o600)
	if err := os.Link(secret, filepath.Join(root, "hard")); err != nil {
		t.Skip("SKIPPED: no hard links here:", err)
	}
	p, _ := sb.Resolve(filepath.Join(root, "hard"))
	if err := Chmod(context.Background(), p, 0o777); fault.KindOf(err) != fault.Invalid {
		t.Errorf("chmod of a hard link: %v, want Invalid", err)
	}
	if err := Chown(context.Background(), p, os.Getuid(), os.Getgid()); fault.KindOf(err) != fault.Invalid {
		t.Errorf("chown of a hard link: %v, want Invalid", err)
	}
	if fi, _ := os.Stat(secret); fi.Mode().Perm() != 0o600 {
		t.Errorf("the outside file's mode changed: %v", fi.Mode())
	}
	for _, name := range []string{"a.txt", "d"} {
		q, _ := sb.Resolve(filepath.Join(root, name))
		if err := Chmod(context.Background(), q, 0o750); err != nil {
			t.Errorf("chmod %s: %v", name, err)
		}
		if err := Chown(context.Background(), q, -1, -1); err != nil {
			t.Errorf("chown %s: %v", name, err)
		}
	}
	// Unreadable (mode 000) files still change: checked by stat.
	q, _ := sb.Resolve(filepath.Join(root, "a.txt"))
	os.Chmod(filepath.Join(root, "a.txt"), 0)
	if err := Chmod(context.Background(), q, 0o644); err != nil {
		t.Errorf("chmod of a 000 file: %v", err)
	}
}
