//go:build linux

package index

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/backend"
)

// sweepBatch is how many files a sweeping goroutine takes at a time; a
// directory's files are one run of the sorted list, so it opens each of
// its directories about once.
const sweepBatch = 1024

// sweep stats the files ids of ix (ascending) from several goroutines
// and returns those whose metadata is not what ix recorded (or which
// cannot be stat'ed). Each directory is opened (O_PATH) beneath its
// parent from the root's handle, never following a link, and its files
// are stat'ed beside it: no directory is read, so a tree with more files
// than inotify watches costs a stat per unwatched file, not a walk.
func sweep(ix *Index, ids []int32) []int {
	return sweepWith(ix, ids, max(4, 2*runtime.GOMAXPROCS(0)))
}

// sweepWith is sweep on at most workers goroutines (the census takes one).
func sweepWith(ix *Index, ids []int32, workers int) []int {
	if len(ids) == 0 {
		return nil
	}
	rootDir, err := os.Open(ix.root)
	if err != nil {
		out := make([]int, len(ids))
		for i, id := range ids {
			out[i] = int(id)
		}
		return out
	}
	defer rootDir.Close()
	base := int(rootDir.Fd())
	var next atomic.Int64
	var mu sync.Mutex
	var out []int
	var wg sync.WaitGroup
	for range min(workers, (len(ids)+sweepBatch-1)/sweepBatch) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var differ []int
			s := pathDirs(base)
			defer s.CloseAll()
			for {
				b := int(next.Add(sweepBatch)) - sweepBatch
				if b >= len(ids) {
					break
				}
				for _, id := range ids[b:min(b+sweepBatch, len(ids))] {
					want, indexed := ix.fileMeta(int(id))
					if !indexed {
						continue // read by every search anyway
					}
					name := ix.nameBytes(int(id))
					i := lastSlash(name)
					dirfd, ok := s.Enter(string(name[:max(0, i)]))
					if ok {
						var now meta
						now, _, ok = fileAt(dirfd, string(name[i+1:]))
						ok = ok && now == want
					}
					if !ok {
						differ = append(differ, int(id))
					}
				}
			}
			mu.Lock()
			out = append(out, differ...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// pathDirs is a goroutine's stack of O_PATH directories below base
// along the files it sweeps, each opened beneath its parent without
// following a link.
func pathDirs(base int) backend.DirStack {
	return backend.DirStack{Base: base, Close: func(fd int) { unix.Close(fd) }, Open: func(parent int, _, name string) int {
		fd, err := unix.Openat(parent, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1
		}
		return fd
	}}
}
