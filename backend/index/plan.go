package index

import (
	"slices"
	"strings"

	csindex "github.com/google/codesearch/index"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/pattern"
)

// query is a search's narrowing: a trigram query every matching content
// satisfies, and clauses of runs its pair masks must allow.
type query struct {
	cq     *csindex.Query
	chains []clause
}

// plan turns q's pattern into a query every matching file satisfies, or
// nil when the index cannot narrow it (".", "\w+", a class that admits
// ASCII, a pattern that fails to compile: the backend says why).
//
// The tree planned is the one the backends run: the pattern the query
// carries (pattern.Of; compiled once at the stack's door, with fsmcp's
// rewrites: Unicode \w\d\s, no newline outside multiline, the case
// folding of -i), whose Syntax is Re parsed back exactly as
// regexp.Compile parsed it; pattern.Trigrams plans it.
func plan(q backend.GrepQuery) *query {
	pat, err := pattern.Of(q)
	if err != nil {
		return nil
	}
	re := pat.Syntax()
	if re == nil {
		return nil
	}
	cq := pattern.Trigrams(re)
	if pattern.NeedsNonASCII(re) {
		// \p{Greek} asks no trigram, but only the few contents holding
		// a byte ≥ 0x80 can match it.
		marker := &csindex.Query{Op: csindex.QAnd, Trigram: []string{nonASCIIMarker}}
		if cq.Op == csindex.QAll {
			cq = marker
		} else {
			cq = &csindex.Query{Op: csindex.QAnd, Sub: []*csindex.Query{cq, marker}}
		}
	}
	if cq.Op == csindex.QAll {
		return nil
	}
	return &query{cq: cq, chains: chains(re)}
}

// match returns the ids of the contents that may match pq, ascending;
// all is true when every content may. For a multiline search, whose
// match may span chunks, they are whole contents by their first ids, and
// the masks are not asked (a chunk's last trigrams have their next bytes
// in the next chunk).
func (ix *Index) match(pq *query, multiline bool) (ids []uint32, all bool) {
	if multiline {
		return ix.eval(pq.cq, ix.filePosting)
	}
	ids, all = ix.eval(pq.cq, ix.posting)
	if all {
		return nil, true
	}
	return ix.chain(ids, pq.chains), false
}

// eval returns the ids of the contents that satisfy cq, ascending, with
// posting giving each trigram's; all is true when cq holds for every file.
func (ix *Index) eval(cq *csindex.Query, posting func(uint32) []uint32) (ids []uint32, all bool) {
	switch cq.Op {
	case csindex.QAll:
		return nil, true
	case csindex.QNone:
		return []uint32{}, false
	case csindex.QAnd:
		all = true
		for _, t := range cq.Trigram {
			l := posting(trigramOf(t))
			if all {
				ids, all = l, false
			} else {
				ids = intersect(ids, l)
			}
			if len(ids) == 0 {
				return ids, false
			}
		}
		for _, sub := range cq.Sub {
			l, subAll := ix.eval(sub, posting)
			if subAll {
				continue
			}
			if all {
				ids, all = l, false
			} else {
				ids = intersect(ids, l)
			}
			if len(ids) == 0 {
				return ids, false
			}
		}
		return ids, all
	case csindex.QOr:
		ids = []uint32{}
		for _, t := range cq.Trigram {
			ids = union(ids, posting(trigramOf(t)))
		}
		for _, sub := range cq.Sub {
			l, subAll := ix.eval(sub, posting)
			if subAll {
				return nil, true
			}
			ids = union(ids, l)
		}
		return ids, false
	}
	return nil, true
}

// trigramOf packs a 3-byte string as the index keys it.
func trigramOf(t string) uint32 {
	if len(t) != 3 { // never from the planner; keeps eval safe
		return maxTrigram
	}
	return uint32(t[0])<<16 | uint32(t[1])<<8 | uint32(t[2])
}

func intersect(a, b []uint32) []uint32 {
	out := a[:0:0]
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func union(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// candidates is one query's narrowing over the ready indexes: a file is
// kept unless an index lists it as indexed, unchanged since (same size,
// times and inode now), and not among the files the query's trigrams
// allow. Anything in doubt — a file the index does not know (new, renamed,
// ignored when it was built), one it could not index, one that changed or
// cannot be stat'ed — is kept, so the answer is exactly the unindexed one.
// Where a watcher follows the root (prune), what it reports changed
// replaces the stat, and directories leading to no candidate and no change
// are not read at all.
type candidates struct {
	multiline bool
	idx       []*Index
	hits      [][]uint64    // per index, a bit per content id
	prune     []*queryPrune // per index; nil: walk and stat
}

// Keep implements backend.Candidates.
func (c *candidates) Keep(dirfd int, name, path string) bool {
	i := c.indexFor(path)
	if i < 0 {
		return true
	}
	ix, hits, qp := c.idx[i], c.hits[i], c.prune[i]
	rel, _ := ix.rel(path)
	trust := false
	if qp != nil {
		var read bool
		if read, trust = qp.file(rel); read {
			return true
		}
	}
	id, ok := ix.lookup(rel)
	if !ok {
		return true
	}
	if qp != nil && qp.list && !qp.underChange(rel) {
		return false // List names it if it is to be read
	}
	if ix.hit(id, hits, c.multiline) {
		return true
	}
	m, indexed := ix.fileMeta(id)
	if !indexed {
		return true
	}
	if trust {
		return false
	}
	now, ok := statAt(dirfd, name, path)
	return !ok || now != m
}

// Chunks implements backend.ChunkCandidates: the hit flags of each chunk,
// and whether it holds no NUL, of a chunked file that the index holds as
// it is now (one fstatat, also
// where pruning trusts it: the flags are only worth what the content
// they were computed from is).
func (c *candidates) Chunks(dirfd int, name, path string) ([]bool, bool) {
	if c.multiline {
		return nil, false
	}
	i := c.indexFor(path)
	if i < 0 {
		return nil, false
	}
	ix, hits := c.idx[i], c.hits[i]
	rel, _ := ix.rel(path)
	id, ok := ix.lookup(rel)
	if !ok || ix.chunks(id) < 2 {
		return nil, false
	}
	m, indexed := ix.fileMeta(id)
	if !indexed {
		return nil, false
	}
	if now, ok := statAt(dirfd, name, path); !ok || now != m {
		return nil, false
	}
	base, n := ix.content(id), ix.chunks(id)
	out := make([]bool, n)
	for k := range n {
		out[k] = has(hits, base+k)
	}
	return out, ix.text(id)
}

// KeepDir implements backend.DirCandidates.
func (c *candidates) KeepDir(path string) bool {
	i := c.indexFor(path)
	if i < 0 || c.prune[i] == nil {
		return true
	}
	rel, _ := c.idx[i].rel(path)
	return c.prune[i].keepDir(rel)
}

// settle waits for the sweeps c started.
func (c *candidates) settle() {
	for _, qp := range c.prune {
		if qp != nil {
			qp.wait()
		}
	}
}

// List implements backend.ListCandidates: where the index's list
// serves the search (narrow's list mode), the candidates below dir and
// the files the index holds no content of, less what changed since the
// check (the walk reads those, KeepDir leading it there).
func (c *candidates) List(dir string) ([]string, bool) {
	if len(c.idx) != 1 || c.prune[0] == nil || !c.prune[0].list {
		return nil, false
	}
	ix, qp, i := c.idx[0], c.prune[0], 0
	rel, ok := ix.relOrRoot(dir)
	if !ok {
		return nil, false // never: listable held every path to the root
	}
	var ids []int
	add := func(file int) { ids = append(ids, file) }
	qp.ps.files.each(c.hits[i], add)
	for _, id := range qp.ps.unindexed {
		add(int(id))
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	prefix := rel + "/"
	var out []string
	for _, id := range ids {
		name := string(ix.nameBytes(id))
		below := name
		if rel != "" {
			var ok bool
			if below, ok = strings.CutPrefix(name, prefix); !ok {
				continue
			}
		}
		if qp.walks(name) {
			continue // the walk reads it
		}
		out = append(out, below)
	}
	return out, true
}

// indexFor is the position of the index of the deepest root holding
// path, or -1.
func (c *candidates) indexFor(path string) int { return deepest(c.idx, path) }

// deepest is the position in idx of the index of the deepest root
// holding path, or -1.
func deepest(idx []*Index, path string) int {
	best := -1
	for i, ix := range idx {
		if _, ok := ix.rel(path); ok && (best < 0 || len(ix.root) > len(idx[best].root)) {
			best = i
		}
	}
	return best
}

// narrow evaluates pq over idx (states: each one's pruning, or nil). It
// returns nil when narrowing would not pay: more than 1/maxShare of some
// index's files are candidates.
func narrow(idx []*Index, states []*pruneState, pq *query, maxShare int, restore, multiline bool, paths []string) *candidates {
	c := &candidates{multiline: multiline}
	for i, ix := range idx {
		ids, all := ix.match(pq, multiline)
		if all || len(ids)*maxShare > ix.ncontent {
			return nil
		}
		bits := make([]uint64, (ix.ncontent+63)/64)
		for _, id := range ids {
			set(bits, int(id))
		}
		c.idx = append(c.idx, ix)
		c.hits = append(c.hits, bits)
		var ps *pruneState
		if states[i] != nil && states[i].ix == ix {
			ps = states[i]
		}
		c.prune = append(c.prune, newQueryPrune(ps, bits, restore, ps != nil && len(idx) == 1 && listable(ps, restore, paths)))
	}
	if len(c.idx) == 0 {
		return nil
	}
	return c
}

// listable reports whether a search of paths can read its candidates
// from ps's list of names: the query's globs and no_ignore bring back
// nothing the listing left out (restore), and each path is the root or
// a directory below it holding nothing the listing left out (a name too
// long below the root may not be below a deeper path).
func listable(ps *pruneState, restore bool, paths []string) bool {
	if restore {
		return false
	}
	for _, p := range paths {
		rel, ok := ps.ix.relOrRoot(p)
		if !ok {
			return false // a path above the root: the walk covers more
		}
		if _, left := ps.leftOut[rel]; left && rel != "" {
			return false
		}
	}
	return true
}

// relOrRoot is path below ix's root, "" for the root itself.
func (ix *Index) relOrRoot(path string) (string, bool) {
	if strings.TrimSuffix(path, "/") == strings.TrimSuffix(ix.root, "/") {
		return "", true
	}
	return ix.rel(path)
}
