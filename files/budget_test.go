package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// TestBudgetBoundsWhatOneCallLoads: one call naming a file forty times
// loads it until the budget is spent; every later name is refused with a
// sentence that says why, and a file over the per-file limit keeps its
// own sentence.
func TestBudgetBoundsWhatOneCallLoads(t *testing.T) {
	sb, root, _ := opsRoot(t)
	os.WriteFile(filepath.Join(root, "k.txt"), []byte(strings.Repeat("k", 1000)), 0o644)
	os.WriteFile(filepath.Join(root, "big.txt"), []byte(strings.Repeat("b", 3000)), 0o644)
	b := NewLoadBudget(2000, 3500)
	p := resolve(t, sb, filepath.Join(root, "k.txt"))
	read, refused := 0, 0
	for range 40 {
		_, err := b.ReadWhole(p)
		var be *BudgetError
		switch {
		case err == nil:
			read++
		case errors.As(err, &be) && fault.KindOf(err) == fault.TooLarge:
			refused++
			if want := p.Abs + " was not read: one call loads at most 3500 bytes across all its files (--max-file-size), and this call has used them; read it in a call of its own or with fewer files"; err.Error() != want {
				t.Fatalf("sentence:\n got %s\nwant %s", err, want)
			}
		default:
			t.Fatal(err)
		}
	}
	if read != 3 || refused != 37 {
		t.Fatalf("read %d, refused %d; want 3 and 37", read, refused)
	}
	_, err := NewLoadBudget(2000, 3500).ReadWhole(resolve(t, sb, filepath.Join(root, "big.txt")))
	var tl *sandbox.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("a file over the per-file limit: %v", err)
	}
}
