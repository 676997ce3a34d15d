package native

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/driver"
	"github.com/fsmcp/fsmcp/backend/index"
	"github.com/fsmcp/fsmcp/internal/test/goroot"
)

// indexed returns next with root's index in front, built and ready.
// settle is the index's settle time; files written before the call are
// waited on until they are older.
func indexed(t *testing.T, next backend.Searcher, root string, settle time.Duration) *index.Searcher {
	t.Helper()
	for deadline := time.Now().Add(settle + 5*time.Millisecond); time.Now().Before(deadline); {
		time.Sleep(time.Until(deadline))
	}
	s, err := index.New(next, New(), index.Options{Mode: "on", Roots: []string{root}, CacheDir: t.TempDir(), Settle: settle, MaxShare: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background())
	s.Wait()
	if !s.Ready() {
		t.Fatal("index not ready after its build")
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// runParityIndexed runs the table with the index on, in front of rg and
// of native, and compares with rg alone; a query the index does not
// narrow goes to the backend untouched.
func runParityIndexed(t *testing.T, root string, table []parityQuery, limit int, settle time.Duration) {
	forEachRG(t, func(t *testing.T, rg *driver.RG) {
		viaRG, viaNative := indexed(t, rg, root, settle), indexed(t, New(), root, settle)
		narrowed := 0
		for _, pq := range table {
			t.Run(pq.name, func(t *testing.T) {
				q := pq.q
				if len(pq.paths) == 0 {
					q.Paths = []string{root}
				}
				for _, p := range pq.paths {
					q.Paths = append(q.Paths, filepath.Clean(filepath.Join(root, p)))
				}
				if !viaNative.Narrows(q) {
					return // the index hands it to the backend as it is
				}
				narrowed++
				a := runOne(rg, q, limit)
				if strings.Contains(a, "partial=true") {
					t.Fatalf("query %+v timed out; nothing to compare", pq.q)
				}
				// Unindexed native against rg is TestParity*'s.
				for name, got := range map[string]string{"index+rg": runOne(viaRG, q, limit), "index+native": runOne(viaNative, q, limit)} {
					if got != a {
						t.Errorf("query %+v: %s differs from rg at %s", pq.q, name, firstDiff(a, got))
					}
				}
			})
		}
		if narrowed < len(table)/3 {
			t.Errorf("only %d of %d queries were narrowed by the index", narrowed, len(table))
		}
	})
}

// runOne is one searcher's side of runBoth.
func runOne(s backend.Searcher, q backend.GrepQuery, limit int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := backend.Run(ctx, s, q, 0, limit)
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("total=%d files=%d partial=%v\n", r.Total, r.Files, r.Partial) +
		backend.Format(r, backend.FormatOptions{LineNumbers: true, Separators: q.Before > 0 || q.After > 0})
}

// TestParityIndexedFixture: the parity table with the index on and off,
// with rg and without, over the fixture tree.
func TestParityIndexedFixture(t *testing.T) {
	runParityIndexed(t, fixture(t), parityTable, 0, 30*time.Millisecond)
}

// TestParityIndexedGoroot: the same over $(go env GOROOT)/src.
func TestParityIndexedGoroot(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the GOROOT parity run in -short mode")
	}
	src := goroot.Src(t)
	table := append([]parityQuery{
		{name: "goroot func regex", q: C(backend.GrepQuery{Pattern: `func \(\w+ \*\w+\) Close\(\)`})},
		{name: "goroot errorf -i", q: backend.GrepQuery{Pattern: `errorf`, IgnoreCase: true, Mode: backend.Count}},
		{name: "goroot context", q: C(backend.GrepQuery{Pattern: `TODO\(rsc\)`, Before: 2, After: 1})},
		{name: "goroot identifier", q: C(backend.GrepQuery{Pattern: `ErrUnexpectedEOF`})},
		{name: "goroot alternation", q: backend.GrepQuery{Pattern: `SIGBUS|SIGSEGV|EINTR`, Mode: backend.Count}},
	}, treeIndependent(parityTable)...)
	runParityIndexed(t, src, table, 20000, index.DefaultSettle)
}
