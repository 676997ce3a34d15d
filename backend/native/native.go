// Package native is fsmcp's native search backend: a parallel directory
// walker and a regexp scanner behind backend's Searcher contract, giving
// the same answers as the rg backend. It serves every search when ripgrep
// is not installed, and globs always under --search-backend auto (its
// walk lists files faster than rg --files here); package ignore gives it
// the same ignore rules and types rg applies.
//
// Speed comes from doing what ripgrep does: directories are read and
// files scanned by a bounded set of goroutines; each file is read whole
// into a reused buffer (big files are memory-mapped) and matched as one
// buffer, not line by line; a literal every match must contain is found
// with bytes.Index (SIMD) before the regexp runs, and then only on the
// candidate line; line numbers are counted only for lines that are shown;
// nothing is allocated per line.
package native

import (
	"cmp"
	"context"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/ignore"
	"github.com/fsmcp/fsmcp/backend/pattern"
)

// Native is the pure-Go Searcher.
type Native struct{}

// New returns the native searcher.
func New() *Native { return &Native{} }

// Name implements backend.Searcher.
func (*Native) Name() string { return "native" }

// Grep implements backend.Searcher.
func (*Native) Grep(ctx context.Context, q backend.GrepQuery, sink backend.Sink) error {
	pat, err := pattern.Of(q) // compiled once, at the stack's door
	if err != nil {
		return err
	}
	filter, err := ignore.NewFilter(q.Globs, q.Types, q.NoIgnore)
	if err != nil {
		return err
	}
	m := newMatcher(pat, q)
	prog := backend.NewProgress(q.Progress)
	var hooks dirHooks
	if d, ok := q.Candidates.(backend.DirCandidates); ok {
		hooks.keep = d.KeepDir
	}
	if q.Candidates != nil {
		hooks.file = q.Candidates.Keep // explicit files are never asked
	}
	chunked, _ := q.Candidates.(backend.ChunkCandidates) // nil flags for a multiline search
	visit := func(st *workerState, root, path, name string, explicit bool) {
		var hits []bool
		var text bool
		if chunked != nil && !explicit {
			hits, text = chunked.Chunks(st.dirfd, name, path)
		}
		// A big file the index knows holds no NUL is mapped, not read:
		// only the chunks it may match in are touched.
		data, unmap, err := readFile(st, st.dirfd, name, hits != nil && text)
		if err != nil {
			return
		}
		if hits != nil {
			again, stillText := chunked.Chunks(st.dirfd, name, path)
			if !slices.Equal(hits, again) {
				hits = nil // it changed around the read: match all of it
			}
			text = text && stillText
		}
		if unmap != nil {
			defer unmap()
			// A mapped file truncated while it is scanned faults (SIGBUS);
			// turn that into a recoverable panic and skip the file rather
			// than crash the server.
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				if r := recover(); r != nil {
					if _, fault := r.(interface{ Addr() uintptr }); !fault {
						panic(r)
					}
				}
			}()
		}
		prog.Add()
		if explicit {
			if backend.ExplicitBinaryData(data) {
				return
			}
		} else {
			n := len(data)
			if hits == nil || !text {
				n = m.searchableLen(data)
			}
			if n < len(data) && q.Mode == backend.Count {
				return // rg --count squashes the count of a binary file
			}
			var spans []span
			if hits != nil {
				spans = chunkSpans(data, hits, n)
			}
			data = data[:n]
			if len(data) == 0 {
				return
			}
			m.scanIn(&st.scan, data, spans, func() backend.FileSink { return sink.File(path) })
			return
		}
		m.scan(&st.scan, data, func() backend.FileSink { return sink.File(path) })
	}
	long := func(string, bool) { q.Skipped.Add(1) }
	// The index's own list names the candidates the walk leaves to it;
	// they are read while the walk goes toward what changed.
	var listed sync.WaitGroup
	var listErr error
	var listMu sync.Mutex
	if lc, ok := q.Candidates.(backend.ListCandidates); ok {
		for _, p := range q.Paths {
			if rels, ok := lc.List(p); ok && len(rels) > 0 {
				listed.Add(1)
				go func() {
					defer listed.Done()
					if err := readList(ctx, p, q.Roots, q.RootDirs, filter, rels, visit, long); err != nil {
						listMu.Lock()
						listErr = cmp.Or(listErr, err)
						listMu.Unlock()
					}
				}()
			}
		}
	}
	err = walk(ctx, q.Paths, q.Roots, q.RootDirs, filter, q.NoIgnore, visit, long, hooks)
	listed.Wait()
	return cmp.Or(err, listErr)
}

// Glob implements backend.Searcher.
func (*Native) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	if err := ignore.CheckGlob(q.Pattern); err != nil {
		return err
	}
	filter, err := ignore.NewFilter(nil, nil, q.NoIgnore)
	if err != nil {
		return err
	}
	prog := backend.NewProgress(q.Progress)
	var mu sync.Mutex
	var fnErr error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, p := range q.Paths {
		base, pat, ok := backend.GlobBase(p, q.Pattern)
		if !ok {
			continue
		}
		if base != "/" && len(base) > 1 && base[len(base)-1] == '/' {
			base = base[:len(base)-1]
		}
		match := backend.GlobMatcher(pat)
		depth := backend.GlobDepth(pat)
		// As rg --files: a directory too deep for a match (its
		// --max-depth) is not read, and a file counts only if it matches.
		long := func(rel string, isDir bool) {
			if isDir && (depth == 0 || strings.Count(rel, "/")+1 < depth) || !isDir && match(rel) {
				q.Skipped.Add(1)
			}
		}
		emit := func(f backend.File) {
			prog.Add()
			mu.Lock()
			defer mu.Unlock()
			if fnErr != nil {
				return
			}
			if err := fn(f); err != nil {
				fnErr = err
				cancel()
			}
		}
		visit := func(st *workerState, root, path, name string, explicit bool) {
			if !match(path[len(root)+1:]) {
				return
			}
			var f backend.File
			ok := false
			if q.Known != nil {
				f, ok = q.Known(st.dirfd, name, path)
			}
			if !ok {
				var mt time.Time
				var size int64
				if mt, size, ok = backend.RegularAt(st.dirfd, name, path); !ok { // the walk always has the directory open
					return
				}
				f = backend.File{Path: path, ModTime: mt, Size: size}
			}
			emit(f)
		}
		hooks := dirHooks{keepAtime: q.KeepAtime}
		if q.List != nil {
			hooks.keep, hooks.file = q.List.KeepDir, q.List.Keep
		}
		err := walk(ctx, []string{base}, backend.RootsOr(q.Roots, p), q.RootDirs, filter, q.NoIgnore, visit, long, hooks)
		if err == nil && fnErr == nil && q.List != nil {
			err = globList(ctx, q, base, backend.RootsOr(q.Roots, p), filter, match, emit, long)
		}
		if fnErr != nil {
			return fnErr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// globList lists what q.List names below base: a file the index holds
// unchanged with its time and size from it, the others stat'ed beside
// their directories, opened from the list (readList) as the walk would.
func globList(ctx context.Context, q backend.GlobQuery, base string, roots []string, filter *ignore.Filter, match func(string) bool, emit func(backend.File), long longFunc) error {
	dir := strings.TrimSuffix(base, "/")
	var stat []string
	ok := q.List.List(base, func(rel string, f backend.File, known bool) {
		if !match(rel) {
			return
		}
		if !known {
			stat = append(stat, strings.Clone(rel)) // rel may be the index's own bytes
			return
		}
		f.Path = dir + "/" + rel
		emit(f)
	})
	if !ok || ctx.Err() != nil {
		return ctx.Err()
	}
	slices.Sort(stat)
	return readList(ctx, base, roots, q.RootDirs, filter, stat, func(st *workerState, root, path, name string, _ bool) {
		if mt, size, ok := backend.RegularAt(st.dirfd, name, path); ok {
			emit(backend.File{Path: path, ModTime: mt, Size: size})
		}
	}, long)
}

// Dirs reads every directory under root that a search of root reads
// (ignore rules honoured, links not followed), from several goroutines
// at once: opened is told of each, open as dirfd, before its entries are
// read; listed of the regular files it keeps, and whether it left out any
// entry. The index watches and checks what it holds this way, so the
// directories keep their access times (dirHooks.keepAtime).
func (*Native) Dirs(ctx context.Context, root string, rootDir *os.File, opened func(dir string, dirfd int), listed func(dir string, dirfd int, files []string, leftOut bool)) error {
	filter, err := ignore.NewFilter(nil, nil, false)
	if err != nil {
		return err
	}
	var dirs []*os.File
	if rootDir != nil {
		dirs = []*os.File{rootDir}
	}
	return walk(ctx, []string{root}, []string{root}, dirs, filter, false,
		func(*workerState, string, string, string, bool) {}, func(string, bool) {}, dirHooks{opened: opened, listed: listed, keepAtime: true})
}
