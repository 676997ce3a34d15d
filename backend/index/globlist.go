package index

import (
	"sort"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/backend"
)

// listedGlob answers a glob from the index's list of names
// (backend.GlobLister): on a followed root nothing but what the watcher
// reported can differ from the list, so the walk reads only toward those
// changes, and the rest is the index's names, with their times and sizes
// where each file's inode has a watch of its own (the others are
// stat'ed: a write through a link from outside reaches no other watch).
type listedGlob struct {
	ix *Index
	qp *queryPrune
}

// listerFor returns q's lister, or nil to walk: one root's index is in
// use and followed, every path lies in it, and the walk of each glob
// base keeps no more than the listing did (listable).
func (s *Searcher) listerFor(q backend.GlobQuery) *listedGlob {
	if q.NoIgnore || len(s.roots) != 1 {
		return nil
	}
	r := s.roots[0]
	ix, ps := r.ix.Load(), r.prune.Load()
	if ix == nil || ps == nil || ps.ix != ix {
		return nil
	}
	var bases []string
	for _, p := range q.Paths {
		base, _, ok := backend.GlobBase(p, q.Pattern)
		if ok {
			bases = append(bases, base)
		}
	}
	if len(bases) == 0 || !listable(ps, false, bases) {
		return nil
	}
	qp := newQueryPrune(ps, nil, false, true)
	if qp == nil {
		return nil
	}
	return &listedGlob{ix: ix, qp: qp}
}

// KeepDir implements backend.GlobLister.
func (g *listedGlob) KeepDir(path string) bool {
	rel, ok := g.ix.relOrRoot(path)
	return !ok || g.qp.keepDir(rel)
}

// Keep implements backend.GlobLister: the walk takes what changed, and
// what the index does not name.
func (g *listedGlob) Keep(_ int, _, path string) bool {
	rel, ok := g.ix.rel(path)
	if !ok || g.qp.walks(rel) {
		return true
	}
	_, known := g.ix.lookup(rel)
	return !known
}

// List implements backend.GlobLister.
func (g *listedGlob) List(dir string, fn func(rel string, f backend.File, known bool)) bool {
	ix, qp := g.ix, g.qp
	rel, ok := ix.relOrRoot(strings.TrimSuffix(dir, "/"))
	if !ok {
		return false
	}
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	first := sort.Search(ix.nfiles, func(i int) bool { return string(ix.nameBytes(i)) >= prefix })
	for id := first; id < ix.nfiles; id++ {
		full := ix.nameView(id) // fn keeps no rel past its call
		if !strings.HasPrefix(full, prefix) {
			break
		}
		if qp.walks(full) {
			continue
		}
		m, indexed := ix.fileMeta(id)
		known := indexed && qp.trusted(id)
		fn(full[len(prefix):], backend.File{ModTime: time.Unix(0, m.mtime), Size: m.size}, known)
	}
	return true
}
