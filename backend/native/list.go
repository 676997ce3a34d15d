package native

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
			ds := listDirs(base, dir, filter)
			defer ds.CloseAll()
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
					fd, ok := ds.Enter(d)
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

// listDirs is a worker's stack of the directories below the search
// path dir (open at base) along its listed files: a directory the globs
// leave out, or that cannot be opened as one (a link or a file swapped
// in: the walk would not enter it either), is not entered.
func listDirs(base int, dir string, filter *ignore.Filter) backend.DirStack {
	return backend.DirStack{Base: base, Close: closeFD, Open: func(parent int, sub, name string) int {
		if filter.Skip(nil, dir, dir+"/"+sub, name, true) {
			return -1
		}
		fd, err := openDir(parent, name, false)
		if err != nil {
			return -1
		}
		return fd
	}}
}
