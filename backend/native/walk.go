package native

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/ignore"
	"github.com/sourcegraph/conc/pool"
)

// walkers is the number of goroutines that read directories and scan
// files. Scanning is CPU-bound once the page cache is warm, but a few more
// goroutines than cores hide the latency of cold reads and opens.
func walkers() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// dirJob is a directory waiting to be read.
type dirJob struct {
	root   string            // the search path it was found under
	path   string            // absolute; "" for "/"
	ig     *ignore.IgnoreDir // ignore context of the directory's parent
	parent *dirHandle        // the open parent directory; nil: fd is set
	name   string            // the directory's name in parent
	fd     int               // the open directory when parent is nil
}

// visitFunc handles one regular file kept by the walk; st.dirfd is its
// directory, open. explicit is true for a file given as a search path.
type visitFunc func(st *workerState, root, path, name string, explicit bool)

// dirHooks are optional: keep, if set, is asked before a subdirectory is
// read (false: nothing below it is looked at); opened is told of each
// directory, open as dirfd, before its entries are read, and listed of
// the regular files it keeps, and whether it left out any entry (ignored,
// or too long).
type dirHooks struct {
	keep func(path string) bool
	// file, asked of each regular file before the ignore rules, says
	// whether it may matter at all: on a narrowed search most entries of
	// the directories read are not candidates, and ruling them out by
	// the index first saves matching each against every .gitignore.
	file   func(dirfd int, name, path string) bool
	opened func(path string, dirfd int)
	listed func(path string, dirfd int, files []string, leftOut bool)
	// keepAtime opens each directory so that reading it leaves its access
	// time as it was (O_NOATIME where granted): the index's walks, which
	// no one asked for, must not look like a reader's.
	keepAtime bool
}

// longFunc is told of each entry the walk keeps but skips as
// backend.TooLong (rel: its path below root); nothing below a directory
// so skipped is looked at.
type longFunc func(rel string, isDir bool)

// workerState is one walker goroutine's scratch space.
type workerState struct {
	dirfd int // the directory being visited (-1 for explicit files)
	buf   []byte
	list  listState // listDir's scratch space
	files []keptFile
	scan  scanState
}

// dirent is one directory entry: its name and type (fs.ModeDir,
// fs.ModeSymlink, 0 for a regular file, else fs.ModeIrregular or another
// type bit).
type dirent struct {
	name string
	typ  fs.FileMode
}

// walker walks directory trees in parallel: a shared LIFO stack of
// directories (depth-first keeps it short), a fixed set of goroutines
// that pop a directory, list it, push its kept subdirectories and visit
// its kept files inline.
type walker struct {
	ctx      context.Context
	filter   *ignore.Filter
	noIgnore bool
	visit    visitFunc
	long     longFunc
	hooks    dirHooks

	mu      sync.Mutex
	cond    *sync.Cond
	stack   []dirJob
	pending int // jobs pushed and not finished
	done    bool
}

// walk visits every kept file under paths; roots (see
// backend.GrepQuery.Roots) bound the ignore files read above them, and
// each root is opened from its open directory in rootDirs when given.
// Entries too long for rg to open go to long instead (see
// backend.TooLong). It returns ctx.Err() if ctx ended first.
func walk(ctx context.Context, paths, roots []string, rootDirs []*os.File, filter *ignore.Filter, noIgnore bool, visit visitFunc, long longFunc, hooks dirHooks) error {
	w := &walker{ctx: ctx, filter: filter, noIgnore: noIgnore, visit: visit, long: long, hooks: hooks}
	w.cond = sync.NewCond(&w.mu)
	st0 := &workerState{dirfd: -1}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		root := backend.RootOf(roots, p)
		rootDir := backend.RootDir(roots, rootDirs, root)
		if fi.IsDir() {
			fd, err := openBeneath(root, rootDir, p, hooks.keepAtime)
			if err != nil {
				return err
			}
			p = strings.TrimSuffix(p, "/")
			var ig *ignore.IgnoreDir
			if !noIgnore {
				ig = ignore.ParentIgnores(p, root)
			}
			w.stack = append(w.stack, dirJob{root: p, path: p, ig: ig, fd: fd})
			w.pending++
			continue
		}
		if fi.Mode().IsRegular() {
			dir, name := filepath.Split(p)
			fd, err := openBeneath(root, rootDir, filepath.Clean(dir), hooks.keepAtime)
			if err != nil {
				return err
			}
			st0.dirfd = fd
			visit(st0, p, p, name, true)
			st0.dirfd = -1
			closeFD(fd)
		}
	}
	if w.pending == 0 {
		return ctx.Err()
	}
	defer func() { // jobs left by a cancelled walk
		for _, j := range w.stack {
			j.close()
		}
	}()
	stop := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.done = true
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer stop()
	p := pool.New().WithMaxGoroutines(walkers())
	for range walkers() {
		p.Go(func() {
			st := &workerState{dirfd: -1}
			for {
				job, ok := w.pop()
				if !ok {
					return
				}
				w.readDir(st, job)
				w.finish()
			}
		})
	}
	p.Wait()
	return ctx.Err()
}

func (w *walker) pop() (dirJob, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.stack) == 0 && !w.done {
		w.cond.Wait()
	}
	if w.done {
		return dirJob{}, false
	}
	j := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	return j, true
}

func (w *walker) finish() {
	w.mu.Lock()
	w.pending--
	if w.pending == 0 {
		w.done = true
		w.cond.Broadcast()
	}
	w.mu.Unlock()
}

func (w *walker) push(jobs []dirJob) {
	if len(jobs) == 0 {
		return
	}
	w.mu.Lock()
	w.stack = append(w.stack, jobs...)
	w.pending += len(jobs)
	if len(jobs) == 1 {
		w.cond.Signal()
	} else {
		w.cond.Broadcast()
	}
	w.mu.Unlock()
}

// close releases what job holds open.
func (j dirJob) close() {
	if j.parent != nil {
		j.parent.release()
	} else if j.fd >= 0 {
		closeFD(j.fd)
	}
}

// open opens job's directory relative to its parent and releases the
// parent.
func (j dirJob) open(keepAtime bool) (int, error) {
	if j.parent == nil {
		return j.fd, nil
	}
	defer j.parent.release()
	return openDir(j.parent.fd, j.name, keepAtime)
}

func (w *walker) readDir(st *workerState, job dirJob) {
	if w.ctx.Err() != nil {
		job.close()
		return
	}
	dirPath := job.path
	if dirPath == "" {
		dirPath = "/"
	}
	fd, err := job.open(w.hooks.keepAtime)
	if err != nil {
		return
	}
	h := newDirHandle(fd)
	defer h.release()
	if w.hooks.opened != nil {
		w.hooks.opened(dirPath, fd)
	}
	entries, err := listDir(st, fd, dirPath)
	if err != nil {
		return
	}
	// Files, ignore files and subdirectories are opened (and visitors
	// stat entries) relative to the open directory.
	st.dirfd = fd

	// relLen is the length of name's path below the search path, which
	// rg opens it by.
	relLen := func(name string) int { return len(job.path) - len(job.root) + len(name) }
	ig := job.ig
	if !w.noIgnore {
		var hasGitignore, hasIgnore, hasRgignore, hasGit bool
		for _, e := range entries {
			if backend.TooLong(relLen(e.name)) {
				continue // rg cannot open it either: it does not count
			}
			switch e.name {
			case ignore.GitignoreFile:
				hasGitignore = true
			case ignore.IgnoreFile:
				hasIgnore = true
			case ignore.RgignoreFile:
				hasRgignore = true
			case ignore.GitDir:
				hasGit = true
			}
		}
		if hasGitignore || hasIgnore || hasRgignore || hasGit {
			ig = ig.ChildAt(st.dirfd, dirPath, hasGitignore, hasIgnore, hasRgignore, hasGit)
		}
	}
	// Push subdirectories before scanning files, so idle walkers can
	// take them at once.
	var subdirs []dirJob
	files := st.files[:0]
	leftOut := false
	for i, e := range entries {
		name, typ := e.name, e.typ
		if typ&fs.ModeSymlink != 0 {
			continue // not followed, as rg does by default
		}
		isDir := typ.IsDir()
		if !isDir && !typ.IsRegular() {
			continue
		}
		path := job.path + "/" + name
		if !isDir && w.hooks.file != nil && !w.hooks.file(st.dirfd, name, path) {
			continue
		}
		if isDir && w.hooks.keep != nil && !w.hooks.keep(path) {
			continue
		}
		if w.filter.Skip(ig, job.root, path, name, isDir) {
			leftOut = leftOut || !ignore.AlwaysLeftOut(name) // nothing brings .git back
			continue
		}
		if backend.TooLong(relLen(name)) {
			leftOut = true
			w.long(path[len(job.root)+1:], isDir)
			continue
		}
		if isDir {
			h.acquire()
			subdirs = append(subdirs, dirJob{root: job.root, path: path, ig: ig, parent: h, name: name})
			continue
		}
		files = append(files, keptFile{i, path})
	}
	if w.hooks.listed != nil {
		names := make([]string, len(files))
		for i, kf := range files {
			names[i] = entries[kf.index].name
		}
		w.hooks.listed(dirPath, fd, names, leftOut)
	}
	w.push(subdirs)
	for _, kf := range files {
		if w.ctx.Err() != nil {
			break
		}
		w.visit(st, job.root, kf.path, entries[kf.index].name, false)
	}
	clear(files)
	st.files = files[:0]
	clear(entries)
	st.dirfd = -1
}

type keptFile struct {
	index int
	path  string
}
