package index

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/native"
)

// TestRestartAfterChangeTimesMoved: a restart over a tree in which more
// than 1% of the files had only their change times moved (times set to
// themselves; the listing sees nothing) updates the index once the
// check finds them, reading those files again, and the new index
// records their metadata as it is now.
func TestRestartAfterChangeTimesMoved(t *testing.T) {
	root := gitRoot(t)
	files := maps.Clone(fixtureFiles)
	for i := range 50 {
		files[fmt.Sprintf("gen/%02d.txt", i)] = fmt.Sprintf("file %d PM_RESUME\n", i)
	}
	writeTree(t, root, files)
	settled()
	opts := Options{Mode: "on", Roots: []string{root}, CacheDir: t.TempDir(), Settle: testSettle, MaxShare: 1}
	s1 := started(t, opts)
	s1.Close()
	for i := range 10 {
		p := filepath.Join(root, fmt.Sprintf("gen/%02d.txt", i))
		fi, _ := os.Stat(p)
		os.Chtimes(p, fi.ModTime(), fi.ModTime())
	}
	settled()
	s2 := started(t, opts)
	defer s2.Close()
	ix := s2.roots[0].ix.Load()
	for i := range 10 {
		rel := fmt.Sprintf("gen/%02d.txt", i)
		id, ok := ix.lookup(rel)
		if !ok {
			t.Fatalf("%s is not listed", rel)
		}
		m, indexed := ix.fileMeta(id)
		var st syscall.Stat_t
		syscall.Stat(filepath.Join(root, rel), &st)
		if ctime := st.Ctim.Nano(); !indexed || m.ctime != ctime {
			t.Fatalf("%s: indexed=%v, change time %d recorded, %d now", rel, indexed, m.ctime, ctime)
		}
	}
	compare(t, root, []backend.Searcher{s2}, []backend.Searcher{native.New()})
}
