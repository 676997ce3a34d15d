package files

import (
	"errors"
	"os"
	"path/filepath"
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
