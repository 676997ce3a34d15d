//go:build linux

package index

import (
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
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
	for range min(max(4, 2*runtime.GOMAXPROCS(0)), (len(ids)+sweepBatch-1)/sweepBatch) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var differ []int
			s := pathStack{base: base}
			defer s.closeAll()
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
					dirfd, ok := s.enter(string(name[:max(0, i)]))
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

// pathStack is one goroutine's open directories (O_PATH) along the path
// of the file it is at, below base.
type pathStack struct {
	base int
	open []pathDir
}

type pathDir struct {
	rel string
	fd  int // -1: could not be opened as a directory
}

// enter returns the directory rel ("" is base's) open, opening what is
// missing of it beneath its parent without following a link.
func (s *pathStack) enter(rel string) (int, bool) {
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
			parent, at = s.open[n-1].fd, s.open[n-1].rel
			if parent < 0 {
				return -1, false
			}
		}
		if at == rel {
			return parent, true
		}
		rest := rel
		if at != "" {
			rest = rel[len(at)+1:]
		}
		name, _, _ := strings.Cut(rest, "/")
		sub := name
		if at != "" {
			sub = at + "/" + name
		}
		fd, err := unix.Openat(parent, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			fd = -1
		}
		s.open = append(s.open, pathDir{rel: sub, fd: fd})
	}
}

func (s *pathStack) pop() {
	if fd := s.open[len(s.open)-1].fd; fd >= 0 {
		unix.Close(fd)
	}
	s.open = s.open[:len(s.open)-1]
}

func (s *pathStack) closeAll() {
	for len(s.open) > 0 {
		s.pop()
	}
}
