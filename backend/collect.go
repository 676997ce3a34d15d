package backend

import (
	"container/heap"
	"context"
	"errors"
	"sort"
	"sync"
	"time"
	"unicode/utf8"
)

// Entry is one unit of a grep result, the thing offset and head_limit
// count: a file (FilesWithMatches), a file and its count (Count), or one
// output line (Content; match or context line).
type Entry struct {
	Path    string
	Line    int    // Content: 1-based line number
	Text    []byte // Content: the line, without terminator
	Context bool   // Content: a context line, not a match
	Count   int    // Count: matching lines (or matches, multiline)
}

// Result is a collected grep result.
type Result struct {
	Mode Mode
	// Entries are the entries after Offset, at most Limit, ordered by path
	// and, within a file, by line.
	Entries []Entry
	// Total is the number of entries in the whole result; Files the number
	// of files with a match.
	Total, Files int
	// Offset and Limit as asked (Limit 0: unlimited).
	Offset, Limit int
	// Partial: the search was stopped (timeout or cancellation) before it
	// finished; Entries and Total cover what was found until then.
	Partial bool
	// Capped: a cap (Caps.Files) ended the search early; Total and Files
	// count what was found until then. Which files made it depends on the
	// order the backend met them in.
	Capped bool
	// TooLong is the number of entries skipped as TooLong.
	TooLong int64
	// KeptAt, when set, is when the result this page comes from was
	// searched: a result kept from an earlier page (Pages, KeptNote).
	KeptAt time.Time
}

// Caps end a search early, as peekaboo's 20 files and 5 matches per file
// do (0: no cap).
type Caps struct {
	// PerFile keeps at most this many matching lines of each file (their
	// context lines before them included); the file's count is capped too.
	PerFile int
	// Files stops the search once this many files have matched.
	Files int
}

// Truncated reports whether entries exist beyond those shown.
func (r *Result) Truncated() bool { return r.Offset+len(r.Entries) < r.Total }

// Collector is a Sink that keeps, in memory bounded by offset+limit
// entries, the first offset+limit entries of the whole result in
// deterministic order (path, then line) and counts the rest. Backends may
// deliver files in any order and from many goroutines.
type Collector struct {
	mode          Mode
	offset, limit int
	keep          int // offset+limit; 0 = keep everything

	caps Caps

	mu     sync.Mutex
	h      entryHeap // max-heap on (path, line) when keep > 0
	total  int
	files  int
	capped bool
	// window, when windowed, is the page itself, taken from a kept
	// result (TakeFiles) rather than collected.
	window   []Entry
	windowed bool
}

// TakeFiles collects a whole result kept by Pages, its files in path
// order, straight into the page: no heap, no sort, only the page's lines
// copied. false (nothing taken) when caps apply, which only a stream
// honours.
func (c *Collector) TakeFiles(files []KeptFile) bool {
	if c.caps != (Caps{}) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	inPage := func(i int) bool { return i >= c.offset && (c.limit == 0 || i < c.offset+c.limit) }
	for _, f := range files {
		if f.Count <= 0 && len(f.Lines) == 0 {
			continue
		}
		c.files++
		if c.mode != Content {
			if inPage(c.total) {
				c.window = append(c.window, Entry{Path: f.Path, Count: f.Count})
			}
			c.total++
			continue
		}
		for i, l := range f.Lines {
			if inPage(c.total) {
				c.window = append(c.window, Entry{Path: f.Path, Line: l.Num, Context: l.Context, Text: AppendLine(nil, f.Line(i))})
			}
			c.total++
		}
	}
	c.windowed = true
	return true
}

// SetCaps sets caps that end the search early; call before the search.
func (c *Collector) SetCaps(caps Caps) { c.caps = caps }

// NewCollector returns a collector for mode that will keep entries
// [offset, offset+limit) of the ordered result. limit 0 keeps everything
// (memory then grows with the result).
func NewCollector(mode Mode, offset, limit int) *Collector {
	if offset < 0 {
		offset = 0
	}
	if limit < 0 {
		limit = 0
	}
	c := &Collector{mode: mode, offset: offset, limit: limit}
	if limit > 0 {
		c.keep = offset + limit
	}
	return c
}

// File implements Sink.
func (c *Collector) File(path string) FileSink {
	return &fileCollector{c: c, path: path}
}

type fileCollector struct {
	c       *Collector
	path    string
	lines   []Entry
	nlines  int // all lines seen, kept or not
	matches int // match lines seen
	textBuf []byte
}

func (f *fileCollector) Line(num int, text []byte, context bool) bool {
	f.nlines++
	if !context {
		f.matches++
	}
	more := f.c.caps.PerFile <= 0 || f.matches < f.c.caps.PerFile
	if f.c.mode != Content {
		return more
	}
	// At most keep lines of one file can be among the first keep entries
	// of the whole result, since a file's lines are contiguous in order.
	if f.c.keep > 0 && len(f.lines) >= f.c.keep {
		return more
	}
	start := len(f.textBuf)
	f.textBuf = AppendLine(f.textBuf, text)
	f.lines = append(f.lines, Entry{Path: f.path, Line: num, Context: context,
		Text: f.textBuf[start:len(f.textBuf):len(f.textBuf)]})
	return more
}

func (f *fileCollector) End(count int) bool {
	c := f.c
	if count <= 0 && f.nlines == 0 {
		return true
	}
	if c.caps.PerFile > 0 {
		count = min(count, c.caps.PerFile)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.caps.Files > 0 && c.files >= c.caps.Files {
		c.capped = true
		return false // a file that ended after the cap was reached
	}
	c.files++
	defer func() {
		if c.caps.Files > 0 && c.files >= c.caps.Files {
			c.capped = true
		}
	}()
	switch c.mode {
	case Content:
		c.total += f.nlines
		for i := range f.lines {
			if !c.push(f.lines[i]) {
				break // later lines of this file sort later still
			}
		}
	default:
		c.total++
		c.push(Entry{Path: f.path, Count: count})
	}
	return c.caps.Files <= 0 || c.files < c.caps.Files
}

// push adds e to the kept set; false if e sorts after everything kept and
// the set is full.
func (c *Collector) push(e Entry) bool {
	if c.keep == 0 || len(c.h) < c.keep {
		heap.Push(&c.h, e)
		return true
	}
	if !entryLess(e, c.h[0]) {
		return false
	}
	c.h[0] = e
	heap.Fix(&c.h, 0)
	return true
}

// Result returns the collected result. err is the backend's error: a
// context error marks the result Partial and is not returned; any other
// error is returned as is.
func (c *Collector) Result(err error) (*Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &Result{Mode: c.mode, Total: c.total, Files: c.files, Offset: c.offset, Limit: c.limit, Capped: c.capped}
	if err != nil {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			return nil, err
		}
		r.Partial = true
	}
	if c.windowed {
		r.Entries = c.window
		return r, nil
	}
	all := make([]Entry, len(c.h))
	copy(all, c.h)
	sort.Slice(all, func(i, j int) bool { return entryLess(all[i], all[j]) })
	if c.offset < len(all) {
		r.Entries = all[c.offset:]
	}
	if c.limit > 0 && len(r.Entries) > c.limit {
		r.Entries = r.Entries[:c.limit]
	}
	return r, nil
}

// Run greps with s and collects entries [offset, offset+limit).
func Run(ctx context.Context, s Searcher, q GrepQuery, offset, limit int) (*Result, error) {
	return RunCapped(ctx, s, q, offset, limit, Caps{})
}

// RunCapped is Run with caps that end the search early.
func RunCapped(ctx context.Context, s Searcher, q GrepQuery, offset, limit int, caps Caps) (*Result, error) {
	c := NewCollector(q.Mode, offset, limit)
	c.SetCaps(caps)
	if offset > 0 {
		ctx = LaterPage(ctx) // the result kept from the first page may serve it (Pages)
	}
	if q.Skipped == nil {
		q.Skipped = new(Skipped)
	}
	if q.Kept == nil {
		q.Kept = new(Kept)
	}
	r, err := c.Result(Grep(ctx, s, q, c))
	if r != nil {
		r.TooLong = q.Skipped.Count()
		r.KeptAt = q.Kept.At()
	}
	return r, err
}

func entryLess(a, b Entry) bool {
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	return a.Line < b.Line
}

// entryHeap is a max-heap: the entry sorting last is at index 0.
type entryHeap []Entry

func (h entryHeap) Len() int           { return len(h) }
func (h entryHeap) Less(i, j int) bool { return entryLess(h[j], h[i]) }
func (h entryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *entryHeap) Push(x any)        { *h = append(*h, x.(Entry)) }
func (h *entryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// MaxLine is the longest content line shown, in characters (UTF-8
// code points; a byte that is not valid UTF-8 counts as one); a longer
// one is cut and marked with LineCut, so one huge line cannot fill the
// memory or the answer.
const MaxLine = 2000

// LineCut marks a content line cut at MaxLine.
const LineCut = "... [truncated]"

// AppendLine appends text to b, cut as MaxLine says.
func AppendLine(b, text []byte) []byte {
	if len(text) <= MaxLine {
		return append(b, text...)
	}
	cut := 0
	for n := 0; cut < len(text); n++ {
		if n == MaxLine {
			return append(append(b, text[:cut]...), LineCut...)
		}
		_, size := utf8.DecodeRune(text[cut:])
		cut += size
	}
	return append(b, text...)
}
