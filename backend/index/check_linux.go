//go:build linux

package index

import (
	"cmp"
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// dirWalker is the native scanner's directory walk (native.Native.Dirs).
type dirWalker interface {
	Dirs(ctx context.Context, root string, rootDir *os.File, opened func(dir string, dirfd int), listed func(dir string, dirfd int, files []string, leftOut bool)) error
}

// check starts a watcher on every directory of r and compares what the
// tree holds with ix, one directory at a time with its watch already in
// place: a change before the watch is a difference the comparison finds,
// one after an event. What differs goes into the overlay, and once every
// directory is watched and compared, searches of r prune (r.prune). Any
// failure leaves r unpruned, which is slower, never wrong. It reports
// rebuild when more than 1% of the files differ from ix.
//
// Every watch comes out of the searcher's share (watchBudget). The
// directories that hold no indexed file are known only as the walk meets
// them, and files take their watches meanwhile: when a directory then
// finds the share spent by this check's file watches, the tree is checked
// once more, with a watch for each directory and none for files (each is
// stat'ed by every search instead).
func (s *Searcher) check(ctx context.Context, r *rootIndex, ix *Index) (rebuild bool) {
	rebuild, again := s.checkWith(ctx, r, ix, true)
	if again && ctx.Err() == nil {
		s.opts.Log.Info("index: the tree's directories need the inotify watches its files took; checking again with one for each directory and none for files", "root", r.root)
		rebuild, _ = s.checkWith(ctx, r, ix, false)
	}
	return rebuild
}

// checkWith is check, with file watches or without; again reports that
// the directories did not fit beside this check's file watches.
//
// It runs in phases: gather (the index's inodes and directories, and
// their watches reserved), the walk (opened watches each directory,
// listed compares its files with the index), then decide (why the
// check gave up, if it did) and follow (the overlay and census put to
// use).
func (s *Searcher) checkWith(ctx context.Context, r *rootIndex, ix *Index, fileWatches bool) (rebuild, again bool) {
	dw, ok := s.native.(dirWalker)
	if !ok {
		return false, false
	}
	w, err := newWatcher(&s.watches)
	if err != nil {
		s.opts.Log.Info("index: no watcher; narrowed searches walk the tree", "root", r.root, "error", err)
		return false, false
	}
	c := gather(r, ix, w, fileWatches)
	if !w.reserveDirs(len(c.ps.known)) {
		why := w.errShare().Error()
		w.close()
		s.opts.Log.Info("index: not following changes; narrowed searches walk the tree", "root", r.root, "reason", why)
		return false, false
	}
	c.countLinks()
	ctx, c.cancel = context.WithCancel(ctx)
	defer c.cancel()
	err = dw.Dirs(ctx, r.root, nil, c.opened, c.listed)
	w.unreserve()
	if why := c.decide(err); why != "" {
		w.close()
		if why == c.crowded && !c.rebuild {
			return false, true
		}
		s.opts.Log.Info("index: not following changes; narrowed searches walk the tree", "root", r.root, "reason", why)
		return c.rebuild, false
	}
	s.follow(r, c)
	return false, false
}

// dirCheck is one check's state, shared by the walk's callbacks (mu
// guards ps's sets, why and crowded); its phases are methods, so that
// the loop over a directory's files calls no closure.
type dirCheck struct {
	ix          *Index
	w           *watcher
	ps          *pruneState
	root        string
	fileWatches bool
	checked     time.Time // when the comparison began (newCensus)
	cancel      context.CancelFunc

	group []int32  // each file's inode (inodeGroups)
	links []uint32 // names per inode: hard links inside the root
	// watched: inodes that have a watch of their own (the first name met
	// adds it); unwatched: those that have none.
	watched, unwatched []uint64
	devs               map[uint64]bool // a device met: remote or not

	differ  atomic.Int64
	tooMany int64        // differ at which the tree is built again
	rebuild bool         // more than 1% of the files differ
	bare    atomic.Int64 // files with a link outside the directory watches' sight that got no watch

	mu      sync.Mutex
	why     string
	crowded string // why, when file watches took what a directory needed
}

// gather sets a check of ix up: the index's inodes, known directories
// and content lists, the pruneState they go into.
func gather(r *rootIndex, ix *Index, w *watcher, fileWatches bool) *dirCheck {
	group, ngroups := inodeGroups(ix)
	c := &dirCheck{ix: ix, w: w, root: r.root, fileWatches: fileWatches, group: group,
		tooMany: int64(ix.nfiles/100 + 1), devs: map[uint64]bool{}}
	c.checked = time.Now()
	c.ps = &pruneState{ix: ix, w: w, known: knownDirs(ix), always: map[string]struct{}{},
		externalDirs: map[string]struct{}{}, leftOut: map[string]struct{}{}, parents: parentPrint(r.root),
		inodes: inodesOf(ix, group, ngroups), files: contentFilesOf(ix), group: group, inodeFiles: groupFilesOf(group, ngroups)}
	c.links = make([]uint32, ngroups)
	c.watched, c.unwatched = make([]uint64, (ngroups+63)/64), make([]uint64, (ngroups+63)/64)
	return c
}

// countLinks counts each inode's names in the index, and notes the
// files it left unindexed (always searched) and their directories.
func (c *dirCheck) countLinks() {
	ix, ps := c.ix, c.ps
	for i := range ix.nfiles {
		c.links[c.group[i]]++
		if _, indexed := ix.fileMeta(i); !indexed {
			addAncestors(ps.always, dirOf(string(ix.nameBytes(i))))
			ps.unindexed = append(ps.unindexed, int32(i))
		}
	}
}

// giveUp ends the walk; the first reason given is the check's.
func (c *dirCheck) giveUp(reason string) {
	c.mu.Lock()
	if c.why == "" {
		c.why = reason
	}
	c.mu.Unlock()
	c.cancel()
}

// differs puts rel in the overlay, and gives up once more than 1% of
// the files differ.
func (c *dirCheck) differs(rel string) {
	c.w.ov.changed(rel, false)
	if c.differ.Add(1) == c.tooMany {
		c.rebuild = true
		c.giveUp("more than 1% of the files differ from the index")
	}
}

// relOf is dir relative to the root.
func (c *dirCheck) relOf(dir string) string {
	if dir == c.root {
		return ""
	}
	return dir[len(c.root)+1:]
}

// opened watches the directory the walk opened, unless it is on a file
// system whose changes inotify does not see.
func (c *dirCheck) opened(dir string, dirfd int) {
	dev, ok := devOf(dirfd)
	if !ok {
		c.giveUp("cannot stat a directory")
		return
	}
	c.mu.Lock()
	remote, seen := c.devs[dev]
	if !seen {
		remote = remoteFS(dirfd)
		c.devs[dev] = remote
	}
	c.mu.Unlock()
	if remote {
		c.giveUp("a network or FUSE file system, whose changes inotify does not see")
		return
	}
	if err := c.w.add(dirfd, c.relOf(dir)); err != nil {
		var short shareError
		if errors.As(err, &short) && c.fileWatches && c.w.holdsFiles() {
			c.mu.Lock()
			c.crowded = err.Error()
			c.mu.Unlock()
		}
		c.giveUp(err.Error())
	}
}

// listed compares the files the walk listed in dir with the index.
func (c *dirCheck) listed(dir string, dirfd int, files []string, leftOut bool) {
	rel := c.relOf(dir)
	if leftOut {
		c.mu.Lock()
		addAncestors(c.ps.leftOut, rel)
		c.mu.Unlock()
	}
	for _, name := range files {
		c.statFile(dirfd, rel, name)
	}
}

// statFile compares the file name in directory rel (open as dirfd) with
// its record, and decides how a change to it will be seen.
func (c *dirCheck) statFile(dirfd int, rel, name string) {
	frel := name
	if rel != "" {
		frel = rel + "/" + name
	}
	id, ok := c.ix.lookup(frel)
	if !ok {
		c.differs(frel) // new since the index, or not listed then
		return
	}
	want, indexed := c.ix.fileMeta(id)
	g := int(c.group[id])
	// A file with a link the directory watches do not see (one
	// made from outside the root, or from a directory the walk
	// leaves out: more links than the index lists) gets a watch
	// of its own, its first name met adds it and its other names
	// share it. Any other file is seen changed through its names
	// by the directory watches; a link made to it from outside
	// later, and a write through that, by the census (census.go).
	c.mu.Lock()
	known, lacking := has(c.watched, g), has(c.unwatched, g)
	c.mu.Unlock()
	now, nlink, regular := fileAt(dirfd, name)
	inodeWatched := known
	if regular && nlink > uint64(c.links[g]) && !known && !lacking && indexed && c.fileWatches {
		// The watch first, then the metadata: a change before the
		// watch shows in it, one after is an event.
		now, nlink, regular, inodeWatched = c.w.addFile(dirfd, name, g)
	}
	if !regular || now != want {
		c.differs(frel)
		return
	}
	c.mu.Lock()
	if inodeWatched {
		set(c.watched, g)
	} else if indexed {
		set(c.unwatched, g)
	}
	if !inodeWatched && (indexed || nlink > uint64(c.links[g])) {
		// Trusted while the census is fresh, else stat'ed.
		c.ps.externalIDs = append(c.ps.externalIDs, int32(id))
		addAncestors(c.ps.externalDirs, rel)
		if nlink > uint64(c.links[g]) {
			c.bare.Add(1)
		}
	}
	c.mu.Unlock()
}

// decide is why the check gave up after the walk, or "": a reason given
// during it, the walk's error, or the overlay's.
func (c *dirCheck) decide(err error) string {
	if c.why == "" && err != nil {
		c.why = err.Error()
	}
	if c.why == "" {
		c.w.ov.mu.Lock()
		c.why = c.w.ov.broken
		c.w.ov.mu.Unlock()
	}
	return c.why
}

// follow puts a whole check to use: searches of r prune with its
// pruneState (unless r's index was replaced meanwhile), and its census
// starts.
func (s *Searcher) follow(r *rootIndex, c *dirCheck) {
	ps, w := c.ps, c.w
	slices.Sort(ps.externalIDs)
	ps.externalBits = make([]uint64, (c.ix.nfiles+63)/64)
	for _, id := range ps.externalIDs {
		set(ps.externalBits, int(id))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.ix.Load() != c.ix { // replaced meanwhile
		w.close()
		return
	}
	ps.census = newCensus(s.opts.CensusBound, ps.externalIDs, c.checked)
	if old := r.prune.Swap(ps); old != nil {
		old.w.close()
	}
	s.censuses.Add(1)
	go func() {
		defer s.censuses.Done()
		ps.census.run(ps, w.done, s.opts.Log)
	}()
	w.mu.Lock()
	dirWatches, filesWatched := len(w.wds), len(w.files)
	w.mu.Unlock()
	if n := c.bare.Load(); n > 0 {
		// A server takes half of the limit: twice what this DIR needs
		// lets every such file have its own (about 1 KB of kernel
		// memory each).
		want := 2 * (int64(dirWatches) + int64(filesWatched) + n)
		s.opts.Log.Info("index: too few inotify watches for every file with a link from outside (fs.inotify.max_user_watches, or --index-watches); the census stats them instead", "root", r.root, "files", n, "raise_to", want)
	}
	s.opts.Log.Info("index: following changes; narrowed searches read only what leads to a candidate", "root", r.root, "dirs", len(ps.known), "watches", dirWatches, "file_watches", filesWatched,
		"census_files", len(ps.externalIDs), "census_bound", censusBoundText(s.opts.CensusBound), "changed", c.differ.Load())
}

// inodesOf lists ix's inodes (numbered by inodeGroups) by inode.
func inodesOf(ix *Index, group []int32, n int) []inodeContent {
	out := make([]inodeContent, 0, n)
	seen := make([]bool, n)
	for i := range ix.nfiles {
		g := group[i]
		if seen[g] {
			continue
		}
		seen[g] = true
		m, _ := ix.fileMeta(i)
		out = append(out, inodeContent{m.ino, int(g)})
	}
	slices.SortFunc(out, func(a, b inodeContent) int { return cmp.Compare(a.ino, b.ino) })
	return out
}

// contentFilesOf lists ix's files by content.
func contentFilesOf(ix *Index) *contentFiles {
	base, _ := ix.bases()
	cf := &contentFiles{base: base, start: make([]int32, ix.ncontent+1), files: make([]int32, ix.nfiles)}
	for i := range ix.nfiles {
		cf.start[ix.content(i)+1]++
	}
	for id := range ix.ncontent {
		cf.start[id+1] += cf.start[id]
	}
	next := slices.Clone(cf.start[:ix.ncontent])
	for i := range ix.nfiles {
		cid := ix.content(i)
		cf.files[next[cid]] = int32(i)
		next[cid]++
	}
	return cf
}

// knownDirs is the set of directories holding ix's files, and above.
func knownDirs(ix *Index) map[string]struct{} {
	set := map[string]struct{}{}
	prev := "\x00"
	for i := range ix.nfiles {
		name := ix.nameBytes(i)
		d := name[:max(0, lastSlash(name))]
		if string(d) == prev {
			continue
		}
		prev = string(d)
		addAncestors(set, prev)
	}
	return set
}

func lastSlash(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '/' {
			return i
		}
	}
	return -1
}

// inodeGroups numbers the inodes of ix's files: names sharing a content
// and an inode number are hard links of one inode; names sharing a
// content alone are distinct files of identical content, which the
// build read and posted once but which are written apart, so each is an
// inode of its own to watch and follow. It returns each file's number
// and how many there are.
func inodeGroups(ix *Index) (group []int32, n int) {
	group = make([]int32, ix.nfiles)
	first := make([]int32, ix.ncontent) // per content: its first inode's number + 1
	var inos []uint64                   // per number: its inode
	var more map[[2]uint64]int32        // (content, inode) of a content's second inode on
	for i := range ix.nfiles {
		cid := ix.content(i)
		m, _ := ix.fileMeta(i)
		g := first[cid] - 1
		switch {
		case g < 0:
			g = int32(len(inos))
			inos = append(inos, m.ino)
			first[cid] = g + 1
		case inos[g] != m.ino:
			if more == nil {
				more = map[[2]uint64]int32{}
			}
			k := [2]uint64{uint64(cid), m.ino}
			var ok bool
			if g, ok = more[k]; !ok {
				g = int32(len(inos))
				inos = append(inos, m.ino)
				more[k] = g
			}
		}
		group[i] = g
	}
	return group, len(inos)
}

// groupFilesOf lists files by their inode number (inodeGroups).
func groupFilesOf(group []int32, n int) *contentFiles {
	cf := &contentFiles{base: make([]int32, n), start: make([]int32, n+1), files: make([]int32, len(group))}
	for g := range cf.base {
		cf.base[g] = int32(g)
	}
	for _, g := range group {
		cf.start[g+1]++
	}
	for g := range n {
		cf.start[g+1] += cf.start[g]
	}
	next := slices.Clone(cf.start[:n])
	for i, g := range group {
		cf.files[next[g]] = int32(i)
		next[g]++
	}
	return cf
}
