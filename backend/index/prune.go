package index

import (
	"cmp"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsmcp/fsmcp/backend"
)

// A narrowed search still has to walk the whole tree to meet its few
// candidates, unless it knows that nothing it would skip has changed:
// one fstatat per file is what kept it exact, and on a million files that
// walk costs more than reading the candidates. Where a watcher follows
// every directory of a root (Linux: inotify), the root's index is checked
// once against the tree, with the watches already in place, and from
// then on the changes the watcher reports are the only files whose
// content the index may not know. A search then opens its candidates
// from the index's list of names (candidates.List) and walks only toward
// the changes; where it cannot (its globs bring back what the listing
// left out), it reads the directories that lead to a candidate or to a
// change.

// pruneState is what a checked index lets a search skip, fixed when the
// check ends; the overlay carries what changed after.
type pruneState struct {
	ix    *Index
	w     *watcher
	known map[string]struct{} // directories holding a listed file, and their ancestors
	// always: directories (and their ancestors) of files read by every
	// search, which the index holds no content of.
	always map[string]struct{}
	// externalIDs are the files without a watch of their own, by number,
	// ascending: a write through a link made to one from outside reaches
	// no watch. The census stats them in the background; a search that
	// finds its last pass too old stats them itself (sweep, or a stat
	// where its walk meets one), none other. Filled on Linux only, the
	// one system that checks a root (check_linux.go).
	//lint:ignore U1000 written and read by check_linux.go only
	externalIDs  []int32
	externalBits []uint64            // the same, a bit per file
	externalDirs map[string]struct{} // their directories, and above
	census       *census
	// unindexed are the listed files the index holds no content of (not
	// UTF-8, too big, unreadable), ascending: every search reads them.
	unindexed []int32
	// leftOut: directories (and ancestors) holding entries the listing
	// left out (ignored, too long); a search whose globs or no_ignore can
	// bring those back reads them.
	leftOut map[string]struct{}
	parents string // the ignore files and .git above the root, as checked
	// inodes maps each inode number to its group (inodeGroups), sorted
	// by inode: a change written through one hard link is reported for
	// that name only, and every other name of the inode must be read too.
	inodes []inodeContent
	files  *contentFiles // names by content: a candidate content's files
	// group numbers each file's inode (inodeGroups); inodeFiles lists
	// the names of each. Files of one content are not one inode: the
	// build posts identical contents once.
	group      []int32
	inodeFiles *contentFiles
}

// contentFiles lists an index's files by content, so a search finds the
// names of its candidate contents without reading every file record (a
// million on a monorepo, for a few hundred candidates).
type contentFiles struct {
	base  []int32 // per id: the content id the chunk belongs to (Index.bases)
	start []int32 // per content id: its files are files[start[id]:start[id+1]]
	files []int32
}

// each calls fn with every file whose content has an id on in ids, once
// per file.
func (cf *contentFiles) each(ids []uint64, fn func(file int)) {
	last := int32(-1)
	for w, word := range ids {
		for word != 0 {
			id := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			b := cf.base[id]
			if b == last {
				continue // another chunk of the content just listed
			}
			last = b
			for _, f := range cf.files[cf.start[b]:cf.start[b+1]] {
				fn(int(f))
			}
		}
	}
}

type inodeContent struct {
	ino   uint64
	group int
}

// groupOfInode is the inode group (inodeGroups) of ino, if the index
// holds it.
func (ps *pruneState) groupOfInode(ino uint64) (int, bool) {
	i, ok := slices.BinarySearchFunc(ps.inodes, ino, func(e inodeContent, t uint64) int { return cmp.Compare(e.ino, t) })
	if !ok {
		return 0, false
	}
	return ps.inodes[i].group, true
}

// stale reports whether r, serving ix, should be checked again: its
// watcher lost events, or its overlay holds more than 1% of the files.
func (r *rootIndex) stale(ix *Index) bool {
	ps := r.prune.Load()
	if ps == nil || ps.ix != ix {
		return false
	}
	n, lost := ps.w.ov.size()
	return lost || n > ix.nfiles/100+1000
}

// addAncestors adds dir ("" the root) and each directory above it to set.
func addAncestors(set map[string]struct{}, dir string) {
	for {
		if _, ok := set[dir]; ok {
			return
		}
		set[dir] = struct{}{}
		if dir == "" {
			return
		}
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			dir = ""
		} else {
			dir = dir[:i]
		}
	}
}

// dirOf is rel's directory ("" the root).
func dirOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// queryPrune is one search's pruning over one index.
type queryPrune struct {
	ps      *pruneState
	restore bool // the query's globs or no_ignore can bring left-out entries back
	// list: the search reads its candidates from the index's list
	// (candidates.List); visit leads only to changes, and the files
	// without a watch of their own were stat'ed (sweep) into changed.
	list bool
	// stale: the census's chunks whose last stat began more than its
	// bound before the search (nil: none): their files, which have no
	// watch of their own, are stat'ed; the others are trusted as the
	// watched ones are.
	stale     []bool
	visit     map[string]struct{} // directories leading to a candidate or a change
	changed   map[string]struct{}
	subtrees  map[string]struct{}
	hasChange bool
	// swept: the files without a watch of their own that are not listed
	// and whose metadata moved; the sweep stats them while the listed
	// candidates are read, and the walk waits for it (wait).
	swept     map[string]struct{}
	sweepDone chan struct{}
	sweepIDs  []int
	listed    []uint64 // the candidates' files, a bit per file: never swept into the walk
	merge     sync.Once
}

// prunable reports whether a search of q can skip directories at all:
// ripgrep's rules decide what the walk keeps, and they must be the ones
// the index was checked under, so no_ignore and a glob that keeps files
// re-include what the listing left out (leftOut says where).
func prunable(q backend.GrepQuery) (restore bool) {
	if q.NoIgnore {
		return true
	}
	for _, g := range q.Globs {
		if g != "" && !strings.HasPrefix(g, "!") {
			return true
		}
	}
	return false
}

// newQueryPrune returns the pruning of a search whose candidate contents
// are hits, or nil to walk everything (the watcher is not following the
// tree, or the ignore files above the root moved).
func newQueryPrune(ps *pruneState, hits []uint64, restore, list bool) *queryPrune {
	if ps == nil || ps.w == nil {
		return nil
	}
	// Whether the census's last pass is recent enough is decided before
	// the overlay is read: what that pass found is in it.
	now := time.Now()
	stale := ps.census.stale(now)
	ps.w.sync()
	if ps.parents != parentPrint(ps.ix.root) {
		return nil
	}
	changed, subtrees, inodes, ok := ps.w.ov.snapshot()
	if !ok {
		return nil
	}
	qp := &queryPrune{ps: ps, restore: restore, list: list, stale: stale, changed: changed, subtrees: subtrees, visit: map[string]struct{}{}}
	ix := ps.ix
	if stale != nil && list && hits != nil {
		// No watch of their own, and no recent stat by the census: each
		// file of a stale chunk is stat'ed, from the list, while the
		// candidates are read. The sweep covers the chunks whole, the
		// candidates too, so it counts as the census's; what it finds
		// goes into the overlay for the searches after, and into this
		// one's walk but for the candidates, which are read anyway.
		qp.listed = make([]uint64, (ix.nfiles+63)/64)
		ps.files.each(hits, func(f int) { set(qp.listed, f) })
		c := ps.census
		var ids []int32
		for k, old := range stale {
			if old {
				ids = append(ids, c.chunk(k)...)
			}
		}
		qp.sweepDone = make(chan struct{})
		go func() {
			defer close(qp.sweepDone)
			qp.sweepIDs = sweep(ix, ids)
			for _, id := range qp.sweepIDs {
				ps.w.ov.changed(string(ix.nameBytes(id)), false)
			}
			for k, old := range stale {
				if old {
					c.passed(k, now)
				}
			}
		}()
	}
	qp.hasChange = len(changed) > 0 || len(subtrees) > 0 || len(inodes) > 0
	// A change through one hard link changes every name of the inode, and
	// a change an inode's own watch saw (through a name no directory
	// watch covers) every name the index gives it.
	var linked []uint64
	ngroups := len(ps.inodeFiles.base)
	for _, g := range inodes {
		if linked == nil {
			linked = make([]uint64, (ngroups+63)/64)
		}
		set(linked, g)
	}
	for rel := range changed {
		g, ok := -1, false
		if id, known := ix.lookup(rel); known {
			g, ok = int(ps.group[id]), true
		} else if ino, nlink, regular := linkOf(filepath.Join(ix.root, rel)); regular && nlink > 1 {
			g, ok = ps.groupOfInode(ino)
		}
		if ok {
			if linked == nil {
				linked = make([]uint64, (ngroups+63)/64)
			}
			set(linked, g)
		}
	}
	if !list {
		leads := func(file int) { addAncestors(qp.visit, dirOf(string(ix.nameBytes(file)))) }
		ps.files.each(hits, leads)
	}
	if linked != nil {
		ps.inodeFiles.each(linked, func(f int) { changed[string(ix.nameBytes(f))] = struct{}{} })
	}
	for rel := range changed {
		addAncestors(qp.visit, dirOf(rel))
	}
	for rel := range subtrees {
		addAncestors(qp.visit, rel)
	}
	return qp
}

// linkOf is the inode and link count of the file at path, not followed.
func linkOf(path string) (ino, nlink uint64, regular bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, 0, false
	}
	return statIno(fi)
}

// underChange reports whether rel is in, or below, a changed subtree.
func (qp *queryPrune) underChange(rel string) bool {
	if len(qp.subtrees) == 0 {
		return false
	}
	for d := rel; ; {
		if _, ok := qp.subtrees[d]; ok {
			return true
		}
		if d == "" {
			return false
		}
		d = dirOf(d)
	}
}

// walks reports whether the watcher saw the file rel change since the
// check (or a directory above it): a search reading from the list leaves
// it to the walk. The sweep's finds are never listed.
func (qp *queryPrune) walks(rel string) bool {
	if len(qp.changed) == 0 && len(qp.subtrees) == 0 {
		return false
	}
	_, c := qp.changed[rel]
	return c || qp.underChange(rel)
}

// wait returns once the sweep, if any, has ended and its finds lead the
// walk (visit) and are read (swept).
func (qp *queryPrune) wait() {
	if qp.sweepDone == nil {
		return
	}
	<-qp.sweepDone
	qp.merge.Do(func() {
		ix := qp.ps.ix
		qp.swept = make(map[string]struct{}, len(qp.sweepIDs))
		for _, id := range qp.sweepIDs {
			if has(qp.listed, id) {
				continue // read from the list
			}
			rel := string(ix.nameBytes(id))
			qp.swept[rel] = struct{}{}
			addAncestors(qp.visit, dirOf(rel))
		}
		qp.hasChange = qp.hasChange || len(qp.swept) > 0
	})
}

// keepDir reports whether the directory rel may hold a file to read.
func (qp *queryPrune) keepDir(rel string) bool {
	qp.wait()
	if backend.TooLong(len(rel) + 256) {
		return true // what is too long to open counts as skipped: walk it
	}
	if _, ok := qp.visit[rel]; ok {
		return true
	}
	ps := qp.ps
	if _, ok := ps.always[rel]; ok && !qp.list {
		return true
	}
	if _, ok := ps.externalDirs[rel]; ok && !qp.list && qp.stale != nil {
		return true
	}
	if _, ok := ps.known[rel]; !ok {
		return true // nothing listed: new, empty or left out; cheap to read
	}
	if qp.restore {
		if _, ok := ps.leftOut[rel]; ok {
			return true
		}
	}
	return qp.underChange(rel)
}

// file says whether the file rel, in a directory the walk reads, must be
// read for what changed (read), and otherwise whether the index's record
// of it can be trusted without a stat (trust): it is not below a changed
// directory, and it has a watch of its own or the census is fresh.
func (qp *queryPrune) file(rel string) (read, trust bool) {
	qp.wait()
	if qp.hasChange {
		if _, c := qp.changed[rel]; c {
			return true, false
		}
		if _, c := qp.swept[rel]; c {
			return true, false
		}
		if qp.underChange(rel) {
			return false, false
		}
	}
	if qp.stale == nil {
		return false, true
	}
	id, ok := qp.ps.ix.lookup(rel)
	return false, !ok || qp.trusted(id)
}

// trusted reports whether the file id, unchanged since the check, may
// be taken as the index holds it without a stat: it has a watch of its
// own, or the census stat'ed it within its bound.
func (qp *queryPrune) trusted(id int) bool {
	if qp.stale == nil || !has(qp.ps.externalBits, id) {
		return true
	}
	return !qp.stale[qp.ps.census.chunkOf(id)]
}

// parentPrint describes the ignore files and .git entries in the
// directories above root, which decide what a walk of root keeps but
// which no watch covers: a search compares it with the one taken when the
// index was checked, a few lstat calls.
func parentPrint(root string) string {
	var b strings.Builder
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		for _, name := range []string{".gitignore", ".ignore", ".rgignore", ".git"} {
			if fi, err := os.Lstat(filepath.Join(d, name)); err == nil {
				fmt.Fprintf(&b, "%s/%s %d %d %v;", d, name, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
			}
		}
		if filepath.Dir(d) == d {
			return b.String()
		}
	}
}
