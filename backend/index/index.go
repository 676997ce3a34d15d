// Package index is a trigram index of the allowed roots, a stage in front
// of the search backends: it turns an fs_grep query into the files that
// could match, and the native scanner then searches exactly those with
// every rule it always applies (ignore files, globs, types, context,
// paging, limits), so an indexed answer is the unindexed one.
//
// Exactness does not depend on the index being fresh. A file is skipped
// only when the index holds its content and its size, modification and
// change times and inode are what they were when it was read; a file the
// index does not know (created, renamed in, not yet indexed) or whose
// metadata moved (fsmcp's own writes, which replace the inode, or anyone
// else's) is searched as without an index. That check is one fstatat per
// skipped file, which costs a small fraction of opening and reading it.
//
// Each root's index is built in the background at start with the walk
// the search uses, stored under the user's cache directory (outside every
// root), memory-mapped, and reused across restarts; until one is ready,
// searches run unindexed. Building reads files on half the cores and
// pauses while any search runs.
package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Options configure New.
type Options struct {
	// Mode is "on" (index every root) or "auto" (index a root holding at
	// least AutoMin files).
	Mode string
	// Roots are the allowed roots (real paths) to index.
	Roots []string
	// CacheDir holds one directory per root; "" is fsmcp/ in the user's
	// cache directory ($XDG_CACHE_HOME, ~/.cache, ...).
	CacheDir string
	// AutoMin is auto's threshold (0: DefaultAutoMin).
	AutoMin int
	// Settle is how long a file must have been left unchanged before its
	// content is indexed (0: DefaultSettle). A later change must move its
	// times, and file-system clocks tick coarsely (FAT's by 2 s). Tests
	// shorten it.
	Settle time.Duration
	// MaxShare: a query narrows when at most 1/MaxShare of an index's
	// files are candidates (0: 8); reading most files after stat'ing the
	// rest is slower than reading them all. Tests set 1.
	MaxShare int
	// MaxWatches is how many inotify watches the watchers may hold, all
	// roots together (0: half of fs.inotify.max_user_watches, less a
	// little); Linux only.
	MaxWatches int64
	// CensusBound bounds how long a write through a hard link made from
	// outside the root to a file without a watch of its own can go
	// unseen (census.go; 0: DefaultCensusBound; < 0: every search stats
	// each such file, as before the census); Linux only.
	CensusBound time.Duration
	Log         *slog.Logger
}

// DefaultSettle is Options.Settle's default.
const DefaultSettle = 2 * time.Second

// DefaultAutoMin is the file count from which auto indexes a root: below
// it a whole search takes well under a second.
const DefaultAutoMin = 50000

// Searcher is a backend.Searcher with the index in front.
type Searcher struct {
	next   backend.Searcher // unindexed searches
	native backend.Searcher // narrowed searches (it honours Candidates)
	opts   Options
	roots  []*rootIndex

	mu     sync.Mutex
	idle   *sync.Cond
	active int            // searches running
	bg     sync.WaitGroup // maintain
	// censuses are the census runs: each reads its index's mapping until
	// its watcher closes, so Close waits for them before it unmaps.
	censuses sync.WaitGroup
	cancel   context.CancelFunc
	done     chan struct{}

	watches watchBudget // the watchers' watches, all roots together
}

// rootIndex is one root's index, nil until ready.
type rootIndex struct {
	root    string
	dir     string
	ix      atomic.Pointer[Index]
	prune   atomic.Pointer[pruneState] // set once ix is checked against a watched tree
	retired []*Index                   // replaced, unmapped at Close (a search may still hold one)
}

// New wraps next (and native, which serves narrowed searches) with the
// index of opts.Roots. It refuses a cache directory inside a root.
// Start begins the builds.
func New(next, native backend.Searcher, opts Options) (*Searcher, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.AutoMin <= 0 {
		opts.AutoMin = DefaultAutoMin
	}
	if opts.Settle <= 0 {
		opts.Settle = DefaultSettle
	}
	if opts.MaxShare <= 0 {
		opts.MaxShare = 8
	}
	if opts.CensusBound == 0 {
		opts.CensusBound = DefaultCensusBound
	}
	base := opts.CacheDir
	if base == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no cache directory for the index: %w", err)
		}
		base = filepath.Join(c, "fsmcp")
	}
	base, err := filepath.Abs(base)
	if err != nil {
		return nil, err
	}
	if err := outsideRoots(base, opts.Roots); err != nil {
		return nil, err
	}
	s := &Searcher{next: next, native: native, opts: opts}
	s.watches.max = opts.MaxWatches
	s.idle = sync.NewCond(&s.mu)
	for _, r := range opts.Roots {
		sum := sha256.Sum256([]byte(r))
		s.roots = append(s.roots, &rootIndex{root: r, dir: filepath.Join(base, hex.EncodeToString(sum[:8]))})
	}
	return s, nil
}

// outsideRoots refuses dir when it, or where its symlinks lead, lies in
// a root: the index holds what the files say and must not be reachable
// through the tools.
func outsideRoots(dir string, roots []string) error {
	real := resolveExisting(dir)
	for _, r := range roots {
		for _, d := range []string{dir, real} {
			if within(d, r) {
				return fmt.Errorf("the index cache directory %s is inside the allowed directory %s; set XDG_CACHE_HOME to a directory outside it", dir, r)
			}
		}
	}
	return nil
}

// resolveExisting resolves the symlinks of the longest existing prefix
// of path and appends the rest.
func resolveExisting(path string) string {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// within reports whether p is dir or below it (sandbox.Within, the one
// containment rule).
func within(p, dir string) bool {
	_, ok := sandbox.Within(dir, p)
	return ok
}

// Start builds or loads each root's index in the background, one root at
// a time, until ctx ends or Close.
func (s *Searcher) Start(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		for _, r := range s.roots {
			if ctx.Err() != nil {
				return
			}
			if err := s.prepare(ctx, r); err != nil && ctx.Err() == nil {
				s.opts.Log.Warn("index: not built; searches there run unindexed", "root", r.root, "error", err)
			}
		}
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			s.maintain(ctx)
		}()
	}()
}

// progressEvery is how often a build logs how far it got.
const progressEvery = 10 * time.Second

// RecheckEvery is how often a root is looked at again, in the background,
// once its watcher lost events or its overlay of changes grew past 1% of
// its files.
const RecheckEvery = 30 * time.Second

// maintain refreshes a root whose overlay no longer serves: a watcher
// that lost events stops pruning (searches stay exact, only slower) until
// the tree is checked again, and a large overlay is read by every search
// until the root is indexed again.
func (s *Searcher) maintain(ctx context.Context) {
	t := time.NewTicker(RecheckEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, r := range s.roots {
			ix := r.ix.Load()
			if ix == nil || !r.stale(ix) {
				continue
			}
			s.opts.Log.Info("index: checking the tree again", "root", r.root)
			if err := s.refresh(ctx, r, ix); err != nil && ctx.Err() == nil {
				s.opts.Log.Warn("index: the check failed; searches there walk the tree", "root", r.root, "error", err)
			}
		}
	}
}

// Ready reports whether every root's index is in use (for tests).
func (s *Searcher) Ready() bool {
	for _, r := range s.roots {
		if r.ix.Load() == nil {
			return false
		}
	}
	return true
}

// Wait blocks until the builds started by Start have ended.
func (s *Searcher) Wait() {
	if s.done != nil {
		<-s.done
	}
}

// prepare loads r's cached index, or builds one, and puts it in use.
//
// A cached file that is damaged (its checksum, sizes, counts or order do
// not hold) is renamed to index.bin.bad, replacing an older one, with one
// log line, and never read again; one of another format or root is
// simply built over.
func (s *Searcher) prepare(ctx context.Context, r *rootIndex) error {
	file := cacheFile(r.dir)
	cached, err := openIndex(file, r.root)
	var bad errCorrupt
	switch {
	case err == nil:
		s.swap(r, cached)
	case errors.As(err, &bad):
		aside := file + ".bad"
		if rerr := os.Rename(file, aside); rerr != nil {
			aside = "(not set aside: " + rerr.Error() + "; it is built over)"
		}
		s.opts.Log.Warn("index: the cached index is damaged; it is set aside and the root indexed again", "root", r.root, "reason", string(bad), "set_aside", aside)
	}
	return s.refresh(ctx, r, cached)
}

// refresh lists r's files and compares them with cached (r's index in
// use, or nil): it keeps it when at most 1% of the files changed, and
// builds a new one otherwise, from cached when at most half the files
// changed (only those are read; see builder.update); then a watcher
// checks the tree against it.
func (s *Searcher) refresh(ctx context.Context, r *rootIndex, cached *Index) error {
	file := cacheFile(r.dir)
	files, err := listFileInfo(ctx, s.native, r.root, s.waitIdle)
	if err != nil {
		return err
	}
	if s.opts.Mode == "auto" && len(files) < s.opts.AutoMin {
		if cached != nil {
			s.check(ctx, r, cached) // it was worth it once; keep using it (it still narrows)
			return nil
		}
		// Nothing is written for a root auto leaves unindexed.
		s.opts.Log.Debug("index: off for this root (auto: fewer files than pay for one)", "root", r.root, "files", len(files), "threshold", s.opts.AutoMin)
		return nil
	}
	from, verify := cached, false
	if cached != nil {
		changed := cached.changedOf(files)
		if changed*100 <= len(files) {
			s.opts.Log.Info("index: reusing the cached index", "root", r.root, "files", cached.Files(), "changed", changed, "bytes", cached.Size())
			// The listing compares sizes and modification times; the check
			// also inodes and change times (a tree copied with cp -a, or
			// cloned again, keeps the former and changes the latter).
			if !s.check(ctx, r, cached) {
				return nil
			}
			changed = -1
			verify = true // the check found them: stat every file kept
		}
		if changed*2 > len(files) {
			from = nil // most of it changed: read everything
		}
		s.opts.Log.Info("index: updating; the cached one still narrows searches meanwhile", "root", r.root, "changed", changed)
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(r.dir, 0o700); err != nil {
		return err
	}
	if err := outsideRoots(r.dir, s.opts.Roots); err != nil {
		return err
	}
	cleanTemps(r.dir)
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.rel
	}
	b := &builder{root: r.root, dir: r.dir, yield: s.waitIdle, workers: workersFor(), settle: s.opts.Settle}
	if from != nil && !verify {
		b.listed = files // the check after will compare inodes and change times
	}
	files = nil
	// Progress every few seconds (report runs under the build's lock).
	last := time.Now()
	b.report = func(done, all int) {
		if now := time.Now(); now.Sub(last) >= progressEvery && done < all {
			last = now
			s.opts.Log.Info("index: building", "root", r.root, "files", done, "of", all)
		}
	}
	s.opts.Log.Info("index: building", "root", r.root, "files", len(names), "dir", r.dir)
	st, err := b.update(ctx, from, names, file)
	if err != nil {
		return err
	}
	ix, err := openIndex(file, r.root)
	if err != nil {
		return err
	}
	s.swap(r, ix)
	s.opts.Log.Info("index: ready", "root", r.root, "files", st.Files, "indexed", st.Indexed, "reused", st.Reused, "known", st.Known, "read_bytes", st.Read,
		"contents", st.Contents, "content_bytes", st.Bytes, "index_bytes", ix.Size(), "took", st.Took.Round(time.Millisecond), "merge_took", st.Merge.Round(time.Millisecond))
	s.check(ctx, r, ix)
	return nil
}

func (s *Searcher) swap(r *rootIndex, ix *Index) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ps := r.prune.Swap(nil); ps != nil {
		ps.w.close()
	}
	if old := r.ix.Swap(ix); old != nil {
		r.retired = append(r.retired, old)
	}
}

// cleanTemps removes what a killed build left in dir (its own files only).
func cleanTemps(dir string) {
	for _, pat := range []string{"run-*.tmp", "post-*.tmp", "index-*.tmp"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, f := range m {
			remove(f)
		}
	}
}

// fileInfo is one listed file.
type fileInfo struct {
	rel   string
	size  int64
	mtime int64
}

// listFileInfo lists root's files as a search walks them (ignore rules
// honoured, .git skipped, symlinks not followed), sorted by relative
// path. yield is called every few hundred files: it holds the listing
// (the walk's workers block on the callback's lock) while searches run.
func listFileInfo(ctx context.Context, native backend.Searcher, root string, yield func()) ([]fileInfo, error) {
	var out []fileInfo
	prefix := strings.TrimSuffix(root, "/") + "/"
	err := native.Glob(ctx, backend.GlobQuery{Pattern: "**", Paths: []string{root}, Roots: []string{root}, KeepAtime: true}, func(f backend.File) error {
		if rel, ok := strings.CutPrefix(f.Path, prefix); ok {
			out = append(out, fileInfo{rel: rel, size: f.Size, mtime: f.ModTime.UnixNano()})
		}
		if len(out)%256 == 0 {
			yield()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b fileInfo) int { return strings.Compare(a.rel, b.rel) })
	return slices.CompactFunc(out, func(a, b fileInfo) bool { return a.rel == b.rel }), nil
}

// changedOf counts the files of the list that ix does not hold as they
// are now, and those it holds that are gone.
func (ix *Index) changedOf(files []fileInfo) int {
	changed, seen := 0, 0
	for _, f := range files {
		id, ok := ix.lookup(f.rel)
		if !ok {
			changed++
			continue
		}
		seen++
		if m, _ := ix.fileMeta(id); m.size != f.size || m.mtime != f.mtime {
			changed++
		}
	}
	return changed + ix.nfiles - seen
}

// waitIdle returns when no search is running: the build yields to serving.
func (s *Searcher) waitIdle() {
	s.mu.Lock()
	for s.active > 0 {
		s.idle.Wait()
	}
	s.mu.Unlock()
}

func (s *Searcher) enter() {
	s.mu.Lock()
	s.active++
	s.mu.Unlock()
}

func (s *Searcher) leave() {
	s.mu.Lock()
	s.active--
	if s.active == 0 {
		s.idle.Broadcast()
	}
	s.mu.Unlock()
}

// Name implements backend.Searcher: the backend behind the index.
func (s *Searcher) Name() string { return s.next.Name() }

// Grep implements backend.Searcher: a query the ready indexes narrow runs
// on the native scanner over the candidates; any other runs as before.
func (s *Searcher) Grep(ctx context.Context, q backend.GrepQuery, sink backend.Sink) error {
	s.enter()
	defer s.leave()
	if c := s.candidatesFor(q); c != nil {
		defer c.settle() // a sweep reads the mapping: end it before leave
		q.Candidates = c
		return s.native.Grep(ctx, q, sink)
	}
	return s.next.Grep(ctx, q, sink)
}

// Glob implements backend.Searcher. Where a watcher follows a root, the
// files come from the index's list of names (listerFor), the walk going
// only toward what changed since the check, and a file the index holds
// unchanged takes its time and size from it instead of a stat (415,896
// stats for **/*.c on the 1M-file tree).
func (s *Searcher) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	s.enter()
	defer s.leave()
	// The lister's walk takes only what changed since its own look at
	// the overlay, and stats it: Known, from another look, could be older.
	if l := s.listerFor(q); l != nil {
		q.List = l
	} else if k := s.knownFor(q.Paths); k != nil {
		q.Known = k.file
	}
	return s.next.Glob(ctx, q, fn)
}

// Narrows reports whether q would run narrowed by the index now.
func (s *Searcher) Narrows(q backend.GrepQuery) bool {
	s.enter() // its sweep reads the mapping, as a search's does
	defer s.leave()
	c := s.candidatesFor(q)
	if c != nil {
		c.settle()
	}
	return c != nil
}

// candidatesFor is q's narrowing, or nil to search unindexed.
func (s *Searcher) candidatesFor(q backend.GrepQuery) *candidates {
	var idx []*Index
	var states []*pruneState
	for _, r := range s.roots {
		ix := r.ix.Load()
		if ix == nil {
			continue
		}
		for _, p := range q.Paths {
			if within(p, r.root) || within(r.root, p) {
				idx = append(idx, ix)
				states = append(states, r.prune.Load())
				break
			}
		}
	}
	if len(idx) == 0 {
		return nil
	}
	pq := plan(q)
	if pq == nil {
		return nil
	}
	return narrow(idx, states, pq, s.opts.MaxShare, prunable(q), q.Multiline, q.Paths)
}

// Close stops the builds and unmaps the indexes.
func (s *Searcher) Close() error {
	if s.cancel != nil {
		s.cancel()
		s.Wait()
		s.bg.Wait()
	}
	s.mu.Lock()
	for s.active > 0 { // a search may still read a mapping
		s.idle.Wait()
	}
	defer s.mu.Unlock()
	for _, r := range s.roots {
		if ps := r.prune.Swap(nil); ps != nil {
			ps.w.close()
		}
	}
	s.censuses.Wait() // each ended with its watcher, at its next chunk
	for _, r := range s.roots {
		for _, ix := range r.retired {
			ix.Close()
		}
		r.retired = nil
		if ix := r.ix.Swap(nil); ix != nil {
			ix.Close()
		}
	}
	return nil
}
