package backend

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fsmcp/fsmcp/backend/ignore"
	"github.com/fsmcp/fsmcp/internal/test/rgtest"
)

// TestFileTypesMatchRG: for every type of fsmcp's table, rg (given the
// table's entry by typeArgs) selects exactly the files the native filter
// selects, whatever rg's built-in table says; run with each rg of
// rgtest.Bins. The tree holds names made from every glob of the table and
// near misses of them.
func TestFileTypesMatchRG(t *testing.T) {
	dir := t.TempDir()
	var ents []os.DirEntry // the tree, made for the first rg
	rgtest.ForEach(t, func(t *testing.T, bin rgtest.Bin) {
		if ents == nil {
			ents = typeSampleTree(t, dir)
		}
		rg, err := NewRG(bin.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range ignore.FileTypes() {
			f, err := ignore.NewFilter(nil, []string{typ}, false)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, e := range ents {
				if !f.Skip(nil, dir, filepath.Join(dir, e.Name()), e.Name(), false) {
					want = append(want, filepath.Join(dir, e.Name()))
				}
			}
			q := GrepQuery{Pattern: "x", Types: []string{typ}, Paths: []string{dir}}
			r, err := Run(context.Background(), rg, q, 0, 0)
			if err != nil {
				t.Fatalf("type %s: %v", typ, err)
			}
			var got []string
			for _, e := range r.Entries {
				got = append(got, e.Path)
			}
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("type %s: rg selects %d files, native %d; rg only: %v; native only: %v",
					typ, len(got), len(want), minus(got, want), minus(want, got))
			}
		}
	})
}
