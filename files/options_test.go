package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/fault"
)

// TestWriteAndMoveOptionsDecidePolicy: a profile that makes no parents
// or replaces nothing says so in the options, and the core refuses (a
// NoParentError, an Exists) with nothing changed — no stat beforehand.
func TestWriteAndMoveOptionsDecidePolicy(t *testing.T) {
	sb, root, _ := opsRoot(t)
	at := func(rel string) string { return filepath.Join(root, rel) }
	var np *NoParentError
	err := WriteWith(t.Context(), resolve(t, sb, at("no/such/f.txt")), []byte("x"), WriteOptions{})
	if !errors.As(err, &np) || fault.KindOf(err) != fault.NotFound || np.Path != at("no/such/f.txt") {
		t.Fatalf("write without parents: %v", err)
	}
	if _, err := os.Stat(at("no")); err == nil {
		t.Fatal("a parent was made")
	}
	if err := WriteWith(t.Context(), resolve(t, sb, at("b.txt")), []byte("b"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	err = MoveWith(t.Context(), resolve(t, sb, at("b.txt")), resolve(t, sb, at("no/b.txt")), MoveOptions{})
	if !errors.As(err, &np) {
		t.Fatalf("move without parents: %v", err)
	}
	if err := MoveWith(t.Context(), resolve(t, sb, at("b.txt")), resolve(t, sb, at("a.txt")), MoveOptions{}); fault.KindOf(err) != fault.Exists {
		t.Fatalf("move onto an existing file without overwrite: %v", err)
	}
	if err := MoveWith(t.Context(), resolve(t, sb, at("b.txt")), resolve(t, sb, at("no/b.txt")), MoveOptions{MakeParents: true}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(at("no/b.txt")); string(data) != "b" {
		t.Fatalf("moved content %q", data)
	}
}

// TestCopyIntoItselfRefusedByNameAndThroughALink: a directory copied or
// moved below itself — by name, or through a symlink in the destination's
// parents — is refused, each step looked up through the root.
func TestCopyIntoItselfRefusedByNameAndThroughALink(t *testing.T) {
	sb, root, _ := opsRoot(t)
	at := func(rel string) string { return filepath.Join(root, rel) }
	os.MkdirAll(at("d/sub"), 0o755)
	os.Symlink("d/sub", at("lnk"))
	for _, dst := range []string{"d/sub/copy", "lnk/copy", "lnk/deeper/copy"} {
		err := Copy(t.Context(), resolve(t, sb, at("d")), resolve(t, sb, at(dst)), false)
		if fault.KindOf(err) != fault.Invalid || !strings.Contains(err.Error(), "into itself") {
			t.Errorf("copy d to %s: %v", dst, err)
		}
		if err := Move(t.Context(), resolve(t, sb, at("d")), resolve(t, sb, at(dst)), false); fault.KindOf(err) != fault.Invalid {
			t.Errorf("move d to %s: %v", dst, err)
		}
	}
	if err := Copy(t.Context(), resolve(t, sb, at("d")), resolve(t, sb, at("e")), false); err != nil {
		t.Fatal(err)
	}
}
