package native

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/driver"
)

// Caps end a real search in both backends: no error, not partial, at most
// the capped number of files and of lines per file.
func TestCapsInBothBackends(t *testing.T) {
	tree := map[string]string{}
	for i := range 200 {
		tree[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = strings.Repeat("needle here\nhay\n", 20)
	}
	dir := t.TempDir()
	writeTree(t, dir, tree)
	searchers := []backend.Searcher{New()}
	if _, err := exec.LookPath("rg"); err == nil {
		rg, err := driver.NewRG("")
		if err != nil {
			t.Fatal(err)
		}
		searchers = append(searchers, rg)
	}
	for _, s := range searchers {
		q := backend.GrepQuery{Pattern: "needle", Paths: []string{dir}, Mode: backend.Content}
		r, err := backend.RunCapped(context.Background(), s, q, 0, 0, backend.Caps{Files: 5, PerFile: 3})
		if err != nil {
			t.Fatalf("%s: %v", s.Name(), err)
		}
		if !r.Capped || r.Partial || r.Files != 5 || r.Total != 15 {
			t.Errorf("%s: capped %v partial %v files %d total %d", s.Name(), r.Capped, r.Partial, r.Files, r.Total)
		}
		perFile := map[string]int{}
		for _, e := range r.Entries {
			perFile[e.Path]++
		}
		for p, n := range perFile {
			if n > 3 {
				t.Errorf("%s: %d lines of %s", s.Name(), n, p)
			}
		}
	}
}
