package fallback

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/ignore"
)

// listBatch is how many listed files a worker takes at a time: runs of
// one directory stay with one worker, which keeps it open.
const listBatch = 64

// readList visits the files rels (relative to the search path dir,
// sorted; backend.ListCandidates) as the walk would have kept them,
// from several goroutines: each directory on the way is opened beneath
// its parent without following a link and must pass the query's globs,
// as must the file. No ignore context is needed: the index listed them
// under the ignore files as they stand. The sorted order puts each
// directory's files in one run, so a worker keeps the directories of its
// batch open as a stack and opens each once.
func readList(ctx context.Context, dir string, roots []string, rootDirs []*os.File, filter *ignore.Filter, rels []string, visit visitFunc, long longFunc) error {
	if len(rels) == 0 {
		return nil
	}
	root := backend.RootOf(roots, dir)
	base, err := openBeneath(root, backend.RootDir(roots, rootDirs, root), dir, false)
	if err != nil {
		return err
	}
	defer closeFD(base)
	dir = strings.TrimSuffix(dir, "/")
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(walkers(), (len(rels)+listBatch-1)/listBatch) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := &workerState{dirfd: -1}
			ds := dirStack{base: base, dir: dir, filter: filter}
			defer ds.closeAll()
			for ctx.Err() == nil {
				b := int(next.Add(listBatch)) - listBatch
				if b >= len(rels) {
					return
				}
				for _, rel := range rels[b:min(b+listBatch, len(rels))] {
					if ctx.Err() != nil {
						return
					}
					if backend.TooLong(len(rel)) {
						long(rel, false)
						continue
					}
					d, name := "", rel
					if i := strings.LastIndexByte(rel, '/'); i >= 0 {
						d, name = rel[:i], rel[i+1:]
					}
					fd, ok := ds.enter(d)
					path := dir + "/" + rel
					if !ok || filter.Skip(nil, dir, path, name, false) {
						continue
					}
					st.dirfd = fd
					visit(st, dir, path, name, false)
					st.dirfd = -1
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// dirStack is one worker's open directories along the path of the
// listed file it is at: the search path's (base) and those below it.
type dirStack struct {
	base   int
	dir    string // the search path
	filter *ignore.Filter
	open   []openDirEntry
}

type openDirEntry struct {
	rel  string // below the search path
	fd   int    // -1: left out by the globs, or could not be opened
	skip bool
}

// enter returns the open directory rel (below the search path; "" is
// the search path), opening what is missing of it, and false when the
// globs leave it (or a directory above it) out or it cannot be opened
// as a directory (a link or a file swapped in: the walk would not enter
// it either).
func (s *dirStack) enter(rel string) (int, bool) {
	for len(s.open) > 0 {
		top := s.open[len(s.open)-1].rel
		if top == rel || strings.HasPrefix(rel, top+"/") {
			break
		}
		s.pop()
	}
	for {
		parent, at := s.base, ""
		if n := len(s.open); n > 0 {
			e := s.open[n-1]
			if e.skip {
				return -1, false
			}
			parent, at = e.fd, e.rel
		}
		if at == rel {
			return parent, true
		}
		rest := rel
		if at != "" {
			rest = rel[len(at)+1:]
		}
		name := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			name = rest[:i]
		}
		sub := name
		if at != "" {
			sub = at + "/" + name
		}
		e := openDirEntry{rel: sub, fd: -1, skip: true}
		if !s.filter.Skip(nil, s.dir, s.dir+"/"+sub, name, true) {
			if fd, err := openDir(parent, name, false); err == nil {
				e.fd, e.skip = fd, false
			}
		}
		s.open = append(s.open, e)
	}
}

func (s *dirStack) pop() {
	e := s.open[len(s.open)-1]
	if e.fd >= 0 {
		closeFD(e.fd)
	}
	s.open = s.open[:len(s.open)-1]
}

func (s *dirStack) closeAll() {
	for len(s.open) > 0 {
		s.pop()
	}
}
