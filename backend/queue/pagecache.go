package queue

import (
	"container/heap"
	"container/list"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsmcp/fsmcp/backend"
)

// Pages keeps the whole result of a recent search, per session and query,
// so that a later page (offset > 0, LaterPage) is served from it instead
// of searching the tree again: on a 1M-file tree every page cost the 25 s
// of the first. Every page of one result reports the same total. A first
// page always searches afresh and keeps what it found. A result is kept
// only when the search ran to its end unstopped, for TTL at most, within
// a byte budget shared by the server (the least recently used go first).
// Before a page is served from it, it is asked what a new search's index
// asks of a file it skips: is it as it was when read? The result is
// dropped when anything may have changed it: a tool that writes was
// called (Changed), a search path or a directory holding a file of the
// result is newer than the search (a file created, removed or replaced
// there, as editors and tools save), or a file of the result is (its
// change or modification time: a file another program rewrote in place,
// in a directory nothing else changed in, was served as it had been,
// with no word of it, until the result expired). One lstat per file of
// the result, a few milliseconds for a page of 40,000 lines. What no
// stat of the result can see is a file outside it that came to match by
// a rewrite in place (or, in a glob result kept in part, came to rank
// among the first): a page served from a kept result says so, with the
// result's age and how to search afresh (Kept, KeptNote).
type Pages struct {
	ttl    time.Duration
	budget int           // bytes kept over all results
	slack  time.Duration // mtimeSlack; tests shorten it

	mu    sync.Mutex
	lru   *list.List // of *pageEntry, most recent first
	byKey map[pageKey]*list.Element
	bytes int
	sweep *time.Timer // drops expired results while any are kept

	gen atomic.Int64 // counts calls that may have changed files (Changed)
}

// Page cache settings.
const (
	DefaultPagesTTL = 30 * time.Second
	// DefaultPagesBudget bounds the bytes of cached results server-wide;
	// one result may take at most half of it.
	DefaultPagesBudget = 32 << 20
	pageOverhead       = 96 // bytes counted per file or glob match besides its path
	lineOverhead       = 24 // and per line besides its text
)

// Changed says files may have changed (a tool that writes ran): every
// result p keeps is stale.
func (p *Pages) Changed() { p.gen.Add(1) }

// laterPage marks a context whose search is for a page after the first.
type pageKey struct {
	session any
	query   string
}

type pageEntry struct {
	key   pageKey
	gen   int64
	at    time.Time
	bytes int
	paths []string // the search paths and the directories of the result, checked for newer mtimes
	// files and globs are the result; each file's times are checked too.
	files []backend.KeptFile
	globs []backend.File // in no order, as a search passes them
	// skipped is what the search counted as TooLong, replayed with it.
	skipped int64
	// beyond is how many glob matches rank after globs, which then are
	// only the first of the result (globRecorder).
	beyond int64
}

// watchDirs is paths and the directories holding files, each once.
func watchDirs(paths []string, files func(yield func(string) bool)) []string {
	seen := map[string]bool{}
	out := append([]string(nil), paths...)
	for _, p := range paths {
		seen[p] = true
	}
	var last lastDir
	for f := range files {
		if d, again := last.of(f); !again && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// lastDir is filepath.Dir with a memory of one: a backend passes a
// directory's files one after another, and Dir (a Clean of the path) and
// a map lookup per file were a third of a glob of 34k files.
type lastDir struct {
	raw, dir string // the last path up to its last separator, and its Dir
}

// of is filepath.Dir(path); again reports that it is the previous call's.
// Dir depends only on path up to its last separator, the volume name
// within it.
func (l *lastDir) of(path string) (dir string, again bool) {
	i := len(path) - 1
	for i >= 0 && !os.IsPathSeparator(path[i]) {
		i--
	}
	if i < 0 || len(filepath.VolumeName(path)) > i {
		return filepath.Dir(path), false
	}
	if l.raw != "" && path[:i+1] == l.raw {
		return l.dir, true
	}
	l.raw, l.dir = path[:i+1], filepath.Dir(path)
	return l.dir, false
}

// NewPages returns a page cache (ttl <= 0: DefaultPagesTTL; budget <= 0:
// DefaultPagesBudget).
func NewPages(ttl time.Duration, budget int) *Pages {
	if ttl <= 0 {
		ttl = DefaultPagesTTL
	}
	if budget <= 0 {
		budget = DefaultPagesBudget
	}
	return &Pages{ttl: ttl, budget: budget, slack: mtimeSlack, lru: list.New(), byKey: map[pageKey]*list.Element{}}
}

// Searcher wraps s so that its results are kept and replayed.
func (p *Pages) Searcher(s backend.Searcher) backend.Searcher { return paged{s, p} }

type paged struct {
	backend.Searcher
	p *Pages
}

func (s paged) Grep(ctx context.Context, q backend.GrepQuery, sink backend.Sink) error {
	key := pageKey{ctx.Value(queueKey{}), "grep " + grepKey(q)}
	if e := s.p.get(ctx, key); e != nil {
		q.Skipped.Add(e.skipped)
		q.Kept.Set(e.at)
		if t, ok := sink.(backend.FilesTaker); ok && t.TakeFiles(e.files) {
			return nil
		}
		replayGrep(e, sink)
		return nil
	}
	rec := &recorder{sink: sink, limit: s.p.budget / 2, gen: s.p.gen.Load(), at: time.Now()}
	if q.Skipped == nil {
		q.Skipped = new(backend.Skipped)
	}
	skipped0 := q.Skipped.Count()
	err := s.Searcher.Grep(ctx, q, rec)
	if err == nil && ctx.Err() == nil && !rec.spoiled.Load() {
		sort.Slice(rec.files, func(i, j int) bool { return rec.files[i].Path < rec.files[j].Path })
		dirs := watchDirs(q.Paths, func(yield func(string) bool) {
			for _, f := range rec.files {
				if !yield(f.Path) {
					return
				}
			}
		})
		s.p.put(&pageEntry{key: key, gen: rec.gen, at: rec.at, bytes: int(rec.bytes.Load()), paths: dirs, files: rec.files, skipped: q.Skipped.Count() - skipped0})
	}
	return err
}

func (s paged) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	key := pageKey{ctx.Value(queueKey{}), "glob " + globKey(q)}
	if e := s.p.get(ctx, key); e != nil && (e.beyond == 0 || (q.Keep > 0 && q.Keep <= len(e.globs))) {
		q.Skipped.Add(e.skipped)
		q.Kept.Set(e.at)
		for _, f := range e.globs {
			if err := fn(f); err != nil {
				return err
			}
		}
		q.Beyond.Add(e.beyond)
		return nil
	}
	rec := &globRecorder{limit: s.p.budget / 2, before: q.Order}
	gen, at := s.p.gen.Load(), time.Now()
	if q.Skipped == nil {
		q.Skipped = new(backend.Skipped)
	}
	skipped0 := q.Skipped.Count()
	err := s.Searcher.Glob(ctx, q, func(f backend.File) error {
		if err := fn(f); err != nil {
			rec.spoiled = true
			return err
		}
		rec.add(f)
		return nil
	})
	if err == nil && ctx.Err() == nil && !rec.spoiled {
		s.p.put(rec.entry(key, gen, at, q.Paths, q.Skipped.Count()-skipped0))
	}
	return err
}

// globRecorder keeps a glob's whole result while it fits its limit of
// bytes. Past it, given the caller's order, it keeps the first files in
// that order that fit (a bounded heap) and the directories of all, so
// that pages among the first are served and a change anywhere in the
// result is still seen: on a 1M-file tree `**/*.c` has 416k matches,
// 70 MB kept whole, and its page at offset 40,000 cost the whole walk.
type globRecorder struct {
	limit   int
	before  func(a, b backend.File) bool
	spoiled bool
	bytes   int
	total   int
	files   []backend.File // every match, or (heap) the first that fit, the last ranked at 0
	heap    bool
	dirs    map[string]bool // heap: the directory of every match
	last    lastDir
}

// dirOverhead is counted per kept directory besides its path.
const dirOverhead = 64

func (r *globRecorder) add(f backend.File) {
	if r.spoiled {
		return
	}
	r.total++
	if !r.heap {
		if len(r.files) == cap(r.files) {
			// Double: append grows a big slice by a quarter, which copied
			// each file about five times (8 MB for a glob of 34k files).
			r.files = slices.Grow(r.files, max(len(r.files), 256))
		}
		r.files = append(r.files, f)
		if r.bytes += len(f.Path) + pageOverhead; r.bytes <= r.limit {
			return
		}
		if r.before == nil {
			r.spoiled, r.files = true, nil
			return
		}
		// Too big to keep whole: keep the first files in order.
		r.heap, r.dirs, r.bytes = true, map[string]bool{}, 0
		all := r.files
		r.files = make([]backend.File, 0, len(all)/2)
		for _, f := range all {
			r.addDir(f.Path)
			r.push(f)
		}
		return
	}
	r.addDir(f.Path)
	r.push(f)
}

func (r *globRecorder) addDir(path string) {
	d, again := r.last.of(path)
	if again || r.dirs[d] {
		return
	}
	r.dirs[strings.Clone(d)] = true // not a slice of a path that may be dropped
	r.bytes += len(d) + dirOverhead
}

// push adds f to the heap of first files and drops the last ranked ones
// while the bytes are over the limit.
func (r *globRecorder) push(f backend.File) {
	cost := len(f.Path) + pageOverhead
	// Kept unless it ranks after every kept file and there is no room;
	// either way what is over the limit (its directory's cost too) goes,
	// or the entry would be too big to keep at all (Pages.put).
	if r.bytes+cost <= r.limit || len(r.files) > 0 && r.before(f, r.files[0]) {
		heap.Push((*rankHeap)(r), f)
		r.bytes += cost
	}
	for r.bytes > r.limit && len(r.files) > 0 {
		g := heap.Pop((*rankHeap)(r)).(backend.File)
		r.bytes -= len(g.Path) + pageOverhead
	}
	if r.bytes > r.limit { // the directories alone are over it
		r.spoiled, r.files, r.dirs = true, nil, nil
	}
}

// entry is what the recorder kept, ready for Pages.put.
func (r *globRecorder) entry(key pageKey, gen int64, at time.Time, paths []string, skipped int64) *pageEntry {
	e := &pageEntry{key: key, gen: gen, at: at, bytes: r.bytes, globs: r.files, skipped: skipped}
	if !r.heap {
		e.paths = watchDirs(paths, func(yield func(string) bool) {
			for _, f := range r.files {
				if !yield(f.Path) {
					return
				}
			}
		})
		return e
	}
	// Not sorted: a glob passes its files in no order, and its caller
	// ranks them (files.Glob), as it does a result kept whole. Sorting
	// the ~100k first files kept of 416k was 80 ms of a glob's time.
	e.beyond = int64(r.total - len(e.globs))
	e.paths = append([]string(nil), paths...)
	for d := range r.dirs {
		e.paths = append(e.paths, d)
	}
	return e
}

// rankHeap is a globRecorder's kept files as a heap whose root ranks last.
type rankHeap globRecorder

func (h *rankHeap) Len() int           { return len(h.files) }
func (h *rankHeap) Less(i, j int) bool { return h.before(h.files[j], h.files[i]) }
func (h *rankHeap) Swap(i, j int)      { h.files[i], h.files[j] = h.files[j], h.files[i] }
func (h *rankHeap) Push(x any)         { h.files = append(h.files, x.(backend.File)) }
func (h *rankHeap) Pop() any {
	f := h.files[len(h.files)-1]
	h.files = h.files[:len(h.files)-1]
	return f
}

// get returns the fresh result kept under key for a later page, dropping
// a stale one.
func (p *Pages) get(ctx context.Context, key pageKey) *pageEntry {
	if !backend.IsLaterPage(ctx) {
		return nil
	}
	p.mu.Lock()
	el, ok := p.byKey[key]
	if !ok {
		p.mu.Unlock()
		return nil
	}
	e := el.Value.(*pageEntry)
	if e.gen != p.gen.Load() || time.Since(e.at) > p.ttl {
		p.removeLocked(el)
		p.mu.Unlock()
		return nil
	}
	p.lru.MoveToFront(el)
	p.mu.Unlock()
	if !e.unchanged(p.slack) {
		p.mu.Lock()
		if el, ok := p.byKey[key]; ok && el.Value == e {
			p.removeLocked(el)
		}
		p.mu.Unlock()
		return nil
	}
	return e
}

// mtimeSlack is how far before a search a modification or change time
// still counts as possibly after it: file systems keep coarse times (the
// kernel's tick, whole seconds, FAT's two). A result is kept for pages
// only of files left alone that long before its search.
const mtimeSlack = 2 * time.Second

// unchanged reports that no search path and no directory of the result
// has a modification time after the result was recorded, and no file of
// the result a modification or change time (a write in place, a
// truncation, a new mode or link) after it, nor is gone.
func (e *pageEntry) unchanged(slack time.Duration) bool {
	since := e.at.Add(-slack)
	for _, p := range e.paths {
		if fi, err := os.Stat(p); err != nil || !fi.ModTime().Before(since) {
			return false
		}
	}
	older := func(path string) bool {
		fi, err := os.Lstat(path)
		if err != nil || !fi.ModTime().Before(since) {
			return false
		}
		ct, ok := changeTime(fi)
		return !ok || ct.Before(since)
	}
	for i := range e.files {
		if !older(e.files[i].Path) {
			return false
		}
	}
	for i := range e.globs {
		if !older(e.globs[i].Path) {
			return false
		}
	}
	return true
}

func (p *Pages) put(e *pageEntry) {
	if e.bytes > p.budget/2 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if el, ok := p.byKey[e.key]; ok {
		p.removeLocked(el)
	}
	p.byKey[e.key] = p.lru.PushFront(e)
	p.bytes += e.bytes
	for p.bytes > p.budget {
		p.removeLocked(p.lru.Back())
	}
	if p.sweep == nil {
		p.sweep = time.AfterFunc(p.ttl, p.expire)
	}
}

// expire drops the results past their time, so their memory goes back
// when no page is asked for again; it runs again while results are kept.
func (p *Pages) expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for el := p.lru.Back(); el != nil; {
		prev := el.Prev()
		if time.Since(el.Value.(*pageEntry).at) > p.ttl {
			p.removeLocked(el)
		}
		el = prev
	}
	p.sweep = nil
	if p.lru.Len() > 0 {
		p.sweep = time.AfterFunc(p.ttl/4, p.expire)
	}
}

func (p *Pages) removeLocked(el *list.Element) {
	e := el.Value.(*pageEntry)
	p.lru.Remove(el)
	delete(p.byKey, e.key)
	p.bytes -= e.bytes
}

// replayGrep feeds a kept result to sink as a backend would, honouring
// its stops.
func replayGrep(e *pageEntry, sink backend.Sink) {
	for _, f := range e.files {
		fs := sink.File(f.Path)
		for i, l := range f.Lines {
			if !fs.Line(l.Num, f.Line(i), l.Context) {
				break
			}
		}
		if !fs.End(f.Count) {
			return
		}
	}
}

// recorder is a Sink that passes everything on and keeps a copy; a copy
// is spoiled (not kept) when the sink below stopped anything or the copy
// outgrew its limit.
type recorder struct {
	sink    backend.Sink
	limit   int
	gen     int64
	at      time.Time
	bytes   atomic.Int64
	spoiled atomic.Bool

	mu    sync.Mutex
	files []backend.KeptFile
}

func (r *recorder) File(path string) backend.FileSink {
	return &recordingFile{r: r, fs: r.sink.File(path), f: backend.KeptFile{Path: path}, bytes: len(path) + pageOverhead}
}

type recordingFile struct {
	r     *recorder
	fs    backend.FileSink
	f     backend.KeptFile
	bytes int
}

func (rf *recordingFile) Line(num int, text []byte, context bool) bool {
	more := rf.fs.Line(num, text, context)
	if !more {
		rf.r.spoiled.Store(true)
	}
	if !rf.r.spoiled.Load() {
		rf.bytes += len(text) + lineOverhead
		if rf.bytes > rf.r.limit {
			rf.r.spoiled.Store(true)
		} else {
			rf.f.Text = append(rf.f.Text, text...)
			rf.f.Lines = append(rf.f.Lines, backend.KeptLine{Num: num, End: uint32(len(rf.f.Text)), Context: context})
		}
	}
	return more
}

func (rf *recordingFile) End(count int) bool {
	more := rf.fs.End(count)
	if !more {
		rf.r.spoiled.Store(true)
	}
	if rf.r.spoiled.Load() {
		return more
	}
	rf.f.Count = count
	if rf.r.bytes.Add(int64(rf.bytes)) > int64(rf.r.limit) {
		rf.r.spoiled.Store(true)
		return more
	}
	rf.r.mu.Lock()
	rf.r.files = append(rf.r.files, rf.f)
	rf.r.mu.Unlock()
	return more
}

// grepKey and globKey name a query (its Progress aside).
func grepKey(q backend.GrepQuery) string {
	return fmt.Sprintf("%q|%q|%q|%q|%q|%v|%v|%v|%v|%d|%d|%d", q.Pattern, q.Paths, q.Roots, q.Globs, q.Types,
		q.IgnoreCase, q.FixedStrings, q.Multiline, q.NoIgnore, q.Before, q.After, q.Mode)
}

func globKey(q backend.GlobQuery) string {
	return fmt.Sprintf("%q|%q|%q|%v", q.Pattern, q.Paths, q.Roots, q.NoIgnore)
}
