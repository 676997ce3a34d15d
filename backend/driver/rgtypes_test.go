package driver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
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
			q := backend.GrepQuery{Pattern: "x", Types: []string{typ}, Paths: []string{dir}}
			r, err := backend.Run(context.Background(), rg, q, 0, 0)
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

// typeSampleTree fills dir with a file for each name made from the globs of
// the table (globSamples) and near misses of them, and lists it.
func typeSampleTree(t *testing.T, dir string) []os.DirEntry {
	names := map[string]bool{}
	for _, typ := range ignore.FileTypes() {
		globs, _ := ignore.TypeGlobs(typ)
		for _, g := range globs {
			for _, n := range globSamples(g) {
				names[n] = true
				names[strings.ToUpper(n)] = true
				names["a"+n] = true
				names[n+"~"] = true
			}
		}
	}
	for n := range names {
		if n == "" || n == "." || n == ".." {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

// minus returns the elements of a not in b, as base names.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, filepath.Base(x))
		}
	}
	return out
}

// globSamples returns base names that glob g matches: each "*" as "" and
// as "x", each [class] as each of its members (a range as its ends).
func globSamples(g string) []string {
	out := []string{""}
	for i := 0; i < len(g); i++ {
		var alts []string
		switch c := g[i]; c {
		case '*':
			alts = []string{"", "x"}
		case '[':
			j := strings.IndexByte(g[i+1:], ']') + i + 1
			class := g[i+1 : j]
			for k := 0; k < len(class); k++ {
				if k+2 < len(class) && class[k+1] == '-' {
					alts = append(alts, class[k:k+1], class[k+2:k+3])
					k += 2
					continue
				}
				alts = append(alts, class[k:k+1])
			}
			i = j
		default:
			alts = []string{string(c)}
		}
		var next []string
		for _, o := range out {
			for _, a := range alts {
				next = append(next, o+a)
			}
		}
		out = next
	}
	return out
}
