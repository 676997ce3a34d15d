package driver

import (
	"runtime"
	"strconv"
	"sync"

	"github.com/fsmcp/fsmcp/backend"
)

// The cores are shared between rg's walk and the stat calls fs_glob adds
// (rg --files makes none): per listed file the stat costs about half
// what rg spends walking to it, so a third of the cores stat. rg walks
// with every core all the same, which measured faster than leaving the
// stats cores of their own: on two cores, fs_glob **/*.c of the Linux
// tree (make bench-linux, in-process, medians of 9, three rounds
// interleaved, 2026-11-29) took 1.53-1.72x of rg --files -g with rg on
// two threads, against 1.74-1.84x with rg on one and the stats on the
// other.
func statWorkers() int { return max(1, runtime.GOMAXPROCS(0)/3) }

// globThreads is rg's --threads for fs_glob: every core, as rg takes by
// itself.
func globThreads() string { return strconv.Itoa(runtime.GOMAXPROCS(0)) }

// statter stats the paths rg lists on a few goroutines, overlapping the
// stat calls (fs_glob needs each file's mtime) with rg's own walk, and
// calls fn with the results one at a time. Every path lies under one
// base directory, opened once; each goroutine opens the directories
// below it as their files come (statCursor), so a file is one fstatat
// of its name.
type statter struct {
	fn       func(backend.File) error
	progress *backend.Progress
	base     statDir
	prefix   int // len(base + "/"): a path's part relative to the base starts there
	batch    []string
	work     chan []string
	wg       sync.WaitGroup
	mu       sync.Mutex
	err      error
	closed   bool
}

// statBatch is how many paths are handed over at once.
const statBatch = 256

// newStatter stats paths under base (as joinOut makes them).
func newStatter(base string, progress *backend.Progress, fn func(backend.File) error) (*statter, error) {
	workers := statWorkers()
	s := &statter{fn: fn, progress: progress, work: make(chan []string, 4*workers)}
	if err := s.base.open(base); err != nil {
		return nil, err
	}
	s.prefix = len(joinOut(base, "./", nil))
	for range workers {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			c := s.base.cursor()
			defer c.close()
			files := make([]backend.File, 0, statBatch)
			for batch := range s.work {
				files = s.statBatch(c, batch, files[:0])
			}
		}()
	}
	return s, nil
}

// statBatch stats batch's regular files into files, then hands them to
// fn under one lock.
func (s *statter) statBatch(c *statCursor, batch []string, files []backend.File) []backend.File {
	for _, path := range batch {
		if mtime, size, ok := c.regular(path, path[s.prefix:]); ok {
			files = append(files, backend.File{Path: path, ModTime: mtime, Size: size})
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range files {
		if s.err != nil {
			break
		}
		s.err = s.fn(f)
		s.progress.Add()
	}
	clear(files)
	return files
}

// add queues path; it returns fn's first error.
func (s *statter) add(path string) error {
	s.batch = append(s.batch, path)
	if len(s.batch) >= statBatch {
		s.work <- s.batch
		s.batch = make([]string, 0, statBatch)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// close flushes, waits for the workers, closes the base and returns fn's
// first error.
func (s *statter) close() error {
	if !s.closed {
		s.closed = true
		if len(s.batch) > 0 {
			s.work <- s.batch
		}
		close(s.work)
		s.wg.Wait()
		s.base.close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
