package native

import (
	"bytes"
	"regexp"
	"unicode/utf8"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/pattern"
)

const (
	// initialBuf is each walker's starting read buffer; most source files
	// fit, so a file costs one open, one or two reads and one close.
	initialBuf = 256 << 10
	// mmapMin: files at least this big are memory-mapped instead of read
	// into the heap, so peak RSS does not grow with the largest file.
	mmapMin = 8 << 20
	// maxKeptBuf: a walker's buffer grown past this is dropped after use.
	maxKeptBuf = 8 << 20
)

// scanState is a walker's per-file matching state, reused across files.
type scanState struct {
	// re is the regexp for the current file: the pattern's Strict form
	// when the file is not valid UTF-8 (decided on first use).
	re      *regexp.Regexp
	reKnown bool

	// next: multiLit's next position of each anchor byte (-2 unknown,
	// -1 none left).
	next []int
}

// matcher runs one compiled pattern over whole buffers. In single-line
// mode a prefilter finds candidate lines — a line holding one of the
// needles every match contains (literals), or a non-ASCII byte for a
// pattern that needs one — and the regexp runs on those lines only; it
// runs over the buffer only when the pattern yields no prefilter.
type matcher struct {
	p      *pattern.Pattern
	mode   backend.Mode
	before int
	after  int

	lit      []byte    // the one case-sensitive needle (else nil)
	rare     int       // index in lit of its rarest byte
	multi    *multiLit // the needles, when not just lit
	complete bool      // a needle found is a match: no regexp run needed
	nonASCII bool      // no needles, but a match needs a byte >= 0x80
	// lineCount: a multiline Count counts matching lines, not matches,
	// because the pattern cannot match a newline (see scanMultiline).
	lineCount bool
	// asciiRe is the regexp for candidate lines of pure ASCII, with
	// Unicode classes cut to their ASCII part (nil: same as the regexp).
	asciiRe *regexp.Regexp
}

func newMatcher(p *pattern.Pattern, q backend.GrepQuery) *matcher {
	m := &matcher{p: p, mode: q.Mode}
	if q.Mode == backend.Content {
		m.before, m.after = max(q.Before, 0), max(q.After, 0)
	}
	if p.Multiline {
		if re := p.Simple(); re != nil {
			m.lineCount = !pattern.MatchesNewline(re)
		}
		return m
	}
	re := p.Simple()
	if re == nil {
		return m
	}
	if a, changed := pattern.ASCIIOnly(re); changed {
		m.asciiRe, _ = regexp.Compile(a.String())
	}
	set, complete, ok := pattern.Needles(re)
	switch {
	case ok && len(set) == 1 && !set[0].Fold:
		m.lit, m.complete = []byte(set[0].Text), complete
		m.rare, _ = pattern.NeedleAnchor(set[0])
	case ok:
		m.multi, m.complete = newMultiLit(set), complete
	default:
		m.nonASCII = pattern.NeedsNonASCII(re)
	}
	return m
}

// searchableLen is how much of a walked file's data rg searches for
// this pattern (its binary rule).
func (m *matcher) searchableLen(data []byte) int {
	if m.p.Multiline && !m.lineCount {
		return backend.MultilineSearchableLen(data)
	}
	return backend.SearchableLen(data)
}

// regexp returns the regexp for data (the file being scanned).
func (m *matcher) regexp(st *scanState, data []byte) *regexp.Regexp {
	if !st.reKnown {
		st.reKnown = true
		if !utf8.Valid(data) {
			st.re = m.p.Strict
		}
	}
	return st.re
}

// lineRegexp returns the regexp for line, a line of data.
func (m *matcher) lineRegexp(st *scanState, data, line []byte) *regexp.Regexp {
	if m.asciiRe != nil && pattern.IndexNonASCII(line, 0) < 0 {
		return m.asciiRe
	}
	return m.regexp(st, data)
}

// lineAt returns the bounds of the line holding offset at: [start, end),
// end at the '\n' or len(data). floor is a known line start ≤ at, which
// bounds the backward search (bytes.LastIndexByte is not vectorised).
func lineAt(data []byte, floor, at int) (start, end int) {
	start = floor + bytes.LastIndexByte(data[floor:at], '\n') + 1
	if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
		end = at + i
	} else {
		end = len(data)
	}
	return start, end
}

// atEnd reports whether offset at is past the last line: the end of an
// empty buffer or just after a final newline (rg sees no line there).
func atEnd(data []byte, at int) bool {
	return at >= len(data) && (len(data) == 0 || data[len(data)-1] == '\n')
}

// nextLine returns the bounds of the first line at or after pos (a line
// start) holding a match, or start -1. Single-line mode only.
func (m *matcher) nextLine(st *scanState, data []byte, pos int) (int, int) {
	floor := pos // pos is a line start
	for pos <= len(data) {
		var c int
		switch {
		case m.lit != nil:
			c = m.indexLit(data, pos)
		case m.multi != nil:
			c = m.multi.index(st, data, pos)
		case m.nonASCII:
			c = pattern.IndexNonASCII(data, pos)
		default:
			loc := m.regexp(st, data).FindIndex(data[pos:])
			if loc == nil {
				return -1, -1
			}
			at := pos + loc[0]
			if atEnd(data, at) {
				return -1, -1
			}
			return lineAt(data, floor, at)
		}
		if c < 0 {
			return -1, -1
		}
		ls, le := lineAt(data, floor, c)
		if m.complete || m.lineRegexp(st, data, data[ls:le]).Match(data[ls:le]) {
			return ls, le
		}
		pos, floor = le+1, le+1
	}
	return -1, -1
}

// rareFailLimit: after this many candidates of the rare byte that are
// not the literal, indexLit hands the rest of the buffer to bytes.Index.
const rareFailLimit = 64

// indexLit returns the offset of the first occurrence of the literal at
// or after pos, or -1. It looks for the literal's rarest byte with
// bytes.IndexByte (vectorised) and checks the literal around it; a buffer
// where that byte keeps appearing without the literal falls back to
// bytes.Index.
func (m *matcher) indexLit(data []byte, pos int) int {
	lit, j := m.lit, m.rare
	if len(lit) == 1 {
		if i := bytes.IndexByte(data[pos:], lit[0]); i >= 0 {
			return pos + i
		}
		return -1
	}
	b := lit[j]
	fails := 0
	for from := pos + j; from < len(data); {
		i := bytes.IndexByte(data[from:], b)
		if i < 0 {
			return -1
		}
		start := from + i - j
		if start+len(lit) <= len(data) && bytes.Equal(data[start:start+len(lit)], lit) {
			return start
		}
		from += i + 1
		if fails++; fails > rareFailLimit {
			if k := bytes.Index(data[from-j:], lit); k >= 0 {
				return from - j + k
			}
			return -1
		}
	}
	return -1
}

// asciiEqualFold compares a and b with ASCII letters case-folded.
func asciiEqualFold(a []byte, b string) bool {
	for i := range a {
		if pattern.Lower(a[i]) != pattern.Lower(b[i]) {
			return false
		}
	}
	return true
}

// scan matches data and reports to sink; open creates the file's sink on
// the first match. It returns whether anything matched.
func (m *matcher) scan(st *scanState, data []byte, open func() backend.FileSink) {
	m.scanIn(st, data, nil, open)
}

// span is a part of a buffer, [s, e), starting at a line start and
// ending after a line end or at the buffer's end.
type span struct{ s, e int }

// scanIn is scan with matches looked for only within spans (nil: the
// whole buffer); single-line mode only. Line numbers and context lines
// still come from the whole buffer.
func (m *matcher) scanIn(st *scanState, data []byte, spans []span, open func() backend.FileSink) {
	if m.multi != nil {
		m.multi.reset(st)
	}
	st.re, st.reKnown = m.p.Re, m.p.Strict == nil
	if m.p.Multiline {
		m.scanMultiline(st, data, open)
		return
	}
	next := func(pos int) (int, int) { return m.nextLine(st, data, pos) }
	if spans != nil {
		st.re, st.reKnown = m.p.Re, true // spans come from the index, which holds valid UTF-8 only
		k, cur := 0, -1
		next = func(pos int) (int, int) {
			for ; k < len(spans); k++ {
				sp := spans[k]
				if pos >= sp.e {
					continue
				}
				if k != cur { // the prefilter's positions are per buffer
					cur = k
					if m.multi != nil {
						m.multi.reset(st)
					}
				}
				if ls, le := m.nextLine(st, data[:sp.e], max(pos, sp.s)); ls >= 0 {
					return ls, le
				}
			}
			return -1, -1
		}
	}
	switch m.mode {
	case backend.FilesWithMatches:
		if ls, _ := next(0); ls >= 0 {
			open().End(1)
		}
	case backend.Count:
		n := 0
		for pos := 0; ; {
			ls, le := next(pos)
			if ls < 0 {
				break
			}
			n++
			pos = le + 1
		}
		if n > 0 {
			open().End(n)
		}
	case backend.Content:
		e := emitter{data: data, before: m.before, after: m.after, open: open}
		for pos := 0; ; {
			ls, le := next(pos)
			if ls < 0 {
				break
			}
			e.match(ls, le)
			pos = le + 1
		}
		e.end()
	}
}

// chunkSpans turns an index's chunk flags for data into the spans to
// match, clipped to limit; nil when data does not split into as many
// chunks as the index holds (then the whole buffer is matched).
func chunkSpans(data []byte, hits []bool, limit int) []span {
	spans := []span{}
	k := 0
	for from := 0; from < len(data); k++ {
		end := backend.ChunkEnd(data, from)
		if k >= len(hits) {
			return nil
		}
		if hits[k] && from < limit {
			e := min(end, limit)
			if n := len(spans); n > 0 && spans[n-1].e == from {
				spans[n-1].e = e
			} else {
				spans = append(spans, span{from, e})
			}
		}
		from = end
	}
	if k != len(hits) {
		return nil
	}
	return spans
}

// scanMultiline matches across lines: every line a match touches is a
// matching line. Count counts matches, as rg --count does with -U, but
// only for a pattern that can match a newline: for one that cannot
// (\p{Greek}, o), rg searches line by line even with -U and counts
// lines, so two matches on one line count once.
func (m *matcher) scanMultiline(st *scanState, data []byte, open func() backend.FileSink) {
	if m.p.Lit != nil && !m.p.LitFold && !bytes.Contains(data, m.p.Lit) {
		return
	}
	if m.mode == backend.FilesWithMatches {
		if loc := m.regexp(st, data).FindIndex(data); loc != nil && !atEnd(data, loc[0]) {
			open().End(1)
		}
		return
	}
	locs := m.regexp(st, data).FindAllIndex(data, -1)
	n := 0
	var e *emitter
	if m.mode == backend.Content {
		e = &emitter{data: data, before: m.before, after: m.after, open: open}
	}
	floor := 0 // a line start at or before the next match
	lastLine := -1
	for _, loc := range locs {
		s, end := loc[0], loc[1]
		if atEnd(data, s) {
			continue
		}
		if e == nil {
			if m.lineCount {
				ls := floor + bytes.LastIndexByte(data[floor:s], '\n') + 1
				floor = ls
				if ls == lastLine {
					continue
				}
				lastLine = ls
			}
			n++
			continue
		}
		n++
		last := s
		if end > s {
			last = end - 1
		}
		ls, _ := lineAt(data, floor, s)
		_, le := lineAt(data, ls, last) // a final '\n' belongs to its line
		floor = ls
		e.match(ls, le)
	}
	if e != nil {
		e.end()
	} else if n > 0 {
		open().End(n)
	}
}

// emitter turns matched line ranges into Line calls with context lines,
// merging overlaps as rg does.
type emitter struct {
	data          []byte
	before, after int
	open          func() backend.FileSink
	fs            backend.FileSink

	countPos, countLine int // line number bookkeeping: line of countPos
	done                int // offset up to which lines were emitted
	doneLine            int // number of the next line at done
	afterLeft           int
	matched             int
}

// lineNum returns the 1-based number of the line starting at ls.
func (e *emitter) lineNum(ls int) int {
	if e.countLine == 0 {
		e.countLine = 1
	}
	e.countLine += bytes.Count(e.data[e.countPos:ls], []byte{'\n'})
	e.countPos = ls
	return e.countLine
}

func (e *emitter) emit(ls, le, num int, ctx bool) {
	if e.fs == nil {
		e.fs = e.open()
	}
	e.fs.Line(num, e.data[ls:le], ctx)
	e.done = le + 1
	e.doneLine = num + 1
}

// flushAfter emits pending after-context lines before offset limit.
func (e *emitter) flushAfter(limit int) {
	for e.afterLeft > 0 && e.done < limit && e.done < len(e.data) {
		ls := e.done
		_, le := lineAt(e.data, ls, ls)
		e.emit(ls, le, e.doneLine, true)
		e.afterLeft--
	}
}

// match reports the lines of [ls, le) (whole lines) as matching.
func (e *emitter) match(ls, le int) {
	if ls < e.done { // overlaps lines already shown (multiline)
		if le < e.done {
			return
		}
		ls = e.done
	}
	e.flushAfter(ls)
	num := e.lineNum(ls)
	if e.before > 0 {
		start, k := ls, 0
		for k < e.before && start > e.done {
			start = bytes.LastIndexByte(e.data[:start-1], '\n') + 1
			k++
		}
		for i := 0; i < k; i++ {
			_, end := lineAt(e.data, start, start)
			e.emit(start, end, num-k+i, true)
			start = end + 1
		}
	}
	for {
		_, end := lineAt(e.data, ls, ls)
		e.emit(ls, end, num, false)
		e.matched++
		if end >= le {
			break
		}
		ls, num = end+1, num+1
	}
	e.countPos, e.countLine = e.done, num+1
	if e.done > len(e.data) {
		e.countPos = len(e.data)
	}
	e.afterLeft = e.after
}

func (e *emitter) end() {
	e.flushAfter(len(e.data) + 1)
	if e.fs != nil {
		e.fs.End(e.matched)
	}
}
