package index

import (
	"time"

	"github.com/fsmcp/fsmcp/backend"
)

// known is one glob's view of the indexes whose roots a watcher follows:
// the files whose time and size it may take from the index.
type known struct {
	idx []*Index
	qp  []*queryPrune
}

// knownFor returns the glob's view over the roots of paths that are
// checked and followed, or nil.
func (s *Searcher) knownFor(paths []string) *known {
	k := &known{}
	for _, r := range s.roots {
		ix, ps := r.ix.Load(), r.prune.Load()
		if ix == nil || ps == nil || ps.ix != ix {
			continue
		}
		for _, p := range paths {
			if within(p, r.root) || within(r.root, p) {
				if qp := newQueryPrune(ps, nil, false, false); qp != nil {
					k.idx = append(k.idx, ix)
					k.qp = append(k.qp, qp)
				}
				break
			}
		}
	}
	if len(k.idx) == 0 {
		return nil
	}
	return k
}

// file implements backend.GlobQuery.Known: the index's record of the
// file at path when the index holds it as it is now, by the rule a
// narrowed search trusts (no change reported since the check, through
// this name or another link, and no link outside the root).
func (k *known) file(_ int, _, path string) (backend.File, bool) {
	i := deepest(k.idx, path)
	if i < 0 {
		return backend.File{}, false
	}
	ix, qp := k.idx[i], k.qp[i]
	rel, _ := ix.rel(path)
	if read, trust := qp.file(rel); read || !trust {
		return backend.File{}, false
	}
	id, ok := ix.lookup(rel)
	if !ok {
		return backend.File{}, false
	}
	m, indexed := ix.fileMeta(id)
	if !indexed {
		return backend.File{}, false
	}
	return backend.File{Path: path, ModTime: time.Unix(0, m.mtime), Size: m.size}, true
}
