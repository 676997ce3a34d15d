//go:build unix

package files

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestEditThroughAliasLosesNothing edits one file concurrently by its name
// and through a symlink alias; every edit appends a distinct token, and
// none may be lost.
func TestEditThroughAliasLosesNothing(t *testing.T) {
	sb, root := newSandbox(t)
	name := filepath.Join(root, "f.txt")
	alias := filepath.Join(root, "alias")
	if err := os.WriteFile(name, []byte("END\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f.txt", alias); err != nil {
		t.Fatal(err)
	}
	const each = 600
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for w, p := range []string{name, alias} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rp := resolve(t, sb, p)
			for i := range each {
				tok := fmt.Sprintf("t%d-%d\n", w, i)
				if _, _, _, err := EditFile(t.Context(), rp, []Edit{{Old: "END", New: tok + "END"}}, 0, false); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for w := range 2 {
		for i := range each {
			if !strings.Contains(string(data), fmt.Sprintf("t%d-%d\n", w, i)) {
				lost++
			}
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d edits lost", lost, 2*each)
	}
	if fi, err := os.Lstat(alias); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the alias is no longer a symlink: %v", err)
	}
	if len(locks) != 0 {
		t.Fatalf("%d edit locks left in the table", len(locks))
	}
}
