package fallback

import (
	"bytes"
	"regexp"
	"syscall"
	"unicode/utf8"

	"github.com/fsmcp/fsmcp/backend"
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

// readFile returns the contents of name in directory dirfd, in st.buf or
// mapped (then unmap must be called after use). It is opened without
// following a symlink and without blocking, and read only if it is a
// regular file (openRegular), so a file swapped for a link or a FIFO
// after the walk listed it is skipped. It uses raw system calls: os.Open
// would also try (and fail) to register every regular file with the
// network poller, one wasted syscall per file. A short read is taken as
// the end of the file, which holds for regular files on local file
// systems.
func readFile(st *workerState, dirfd int, name string) (data []byte, unmap func(), err error) {
	fd, err := openRegular(dirfd, name)
	if err != nil {
		return nil, nil, err
	}
	defer syscall.Close(fd)
	if cap(st.buf) == 0 {
		st.buf = make([]byte, initialBuf)
	}
	buf := st.buf[:cap(st.buf)]
	n := 0
	for {
		if n == len(buf) {
			var sb syscall.Stat_t
			if err := syscall.Fstat(fd, &sb); err != nil {
				return nil, nil, err
			}
			if sb.Size >= mmapMin {
				m, err := syscall.Mmap(fd, 0, int(sb.Size), syscall.PROT_READ, syscall.MAP_SHARED)
				if err == nil {
					return m, func() { syscall.Munmap(m) }, nil
				}
			}
			nb := make([]byte, max(2*len(buf), int(sb.Size)+1))
			copy(nb, buf[:n])
			buf = nb
			if len(nb) <= maxKeptBuf {
				st.buf = nb
			}
		}
		want := len(buf) - n
		k, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		n += k
		if k == 0 || k < want {
			break
		}
	}
	return buf[:n], nil, nil
}

// scanState is a walker's per-file matching state, reused across files.
type scanState struct {
	// re is the regexp for the current file: the pattern's Strict form
	// when the file is not valid UTF-8 (decided on first use).
	re      *regexp.Regexp
	reKnown bool

	// case-insensitive prefilter: next positions of the anchor byte in
	// each case (-2 unknown, -1 none left).
	nextLo, nextUp int
}

// matcher runs one compiled pattern over whole buffers.
type matcher struct {
	p        *backend.Pattern
	mode     backend.Mode
	before   int
	after    int
	litOnly  bool // the regex is exactly Lit (case-sensitive): no regexp run needed
	rare     int  // index in Lit of its rarest byte
	anchor   int  // LitFold: index in Lit of the byte searched for
	loA, upA byte // LitFold: anchor byte in both cases
	foldKS   bool // LitFold: Lit has k or s, which fold to non-ASCII runes
}

func newMatcher(p *backend.Pattern, q backend.GrepQuery) *matcher {
	m := &matcher{p: p, mode: q.Mode}
	if q.Mode == backend.Content {
		m.before, m.after = max(q.Before, 0), max(q.After, 0)
	}
	if p.Lit != nil && !p.LitFold {
		prefix, complete := p.Re.LiteralPrefix()
		m.litOnly = complete && prefix == string(p.Lit)
		m.rare = 0
		for i, c := range p.Lit {
			if byteRank[c] < byteRank[p.Lit[m.rare]] {
				m.rare = i
			}
		}
	}
	if p.LitFold {
		best, bestRank := -1, 1<<30
		for i, c := range p.Lit {
			lc := lower(c)
			if lc == 'k' || lc == 's' {
				m.foldKS = true
				continue
			}
			if r := max(int(byteRank[lc]), int(byteRank[upper(c)])); r < bestRank {
				best, bestRank = i, r
			}
		}
		if best < 0 {
			m.p = &backend.Pattern{Re: p.Re, Strict: p.Strict, Multiline: p.Multiline} // no usable anchor
		} else {
			m.anchor = best
			m.loA, m.upA = lower(p.Lit[best]), upper(p.Lit[best])
		}
	}
	return m
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
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
	p := m.p
	floor := pos // pos is a line start
	for pos <= len(data) {
		switch {
		case p.Lit != nil && !p.LitFold:
			i := m.indexLit(data, pos)
			if i < 0 {
				return -1, -1
			}
			ls, le := lineAt(data, floor, i)
			if m.litOnly || m.regexp(st, data).Match(data[ls:le]) {
				return ls, le
			}
			pos, floor = le+1, le+1
		case p.LitFold:
			c := m.nextAnchor(st, data, pos)
			if c < 0 {
				return -1, -1
			}
			start := c - m.anchor
			// k/s may match non-ASCII runes: then the regexp decides.
			ok := m.foldKS || (start >= 0 && start+len(p.Lit) <= len(data) &&
				asciiEqualFold(data[start:start+len(p.Lit)], p.Lit))
			if !ok {
				pos = c + 1 // floor stays a line start before pos
				continue
			}
			ls, le := lineAt(data, floor, c)
			if m.regexp(st, data).Match(data[ls:le]) {
				return ls, le
			}
			pos, floor = le+1, le+1
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
	}
	return -1, -1
}

// nextAnchor returns the next offset ≥ pos of the anchor byte in either
// case, or -1.
func (m *matcher) nextAnchor(st *scanState, data []byte, pos int) int {
	find := func(next *int, c byte) {
		if *next == -1 || (*next >= pos) {
			return
		}
		if i := bytes.IndexByte(data[pos:], c); i >= 0 {
			*next = pos + i
		} else {
			*next = -1
		}
	}
	find(&st.nextLo, m.loA)
	if m.upA == m.loA {
		return st.nextLo
	}
	find(&st.nextUp, m.upA)
	switch {
	case st.nextLo < 0:
		return st.nextUp
	case st.nextUp < 0:
		return st.nextLo
	}
	return min(st.nextLo, st.nextUp)
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
	lit, j := m.p.Lit, m.rare
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

func asciiEqualFold(a, b []byte) bool {
	for i := range a {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

// scan matches data and reports to sink; open creates the file's sink on
// the first match. It returns whether anything matched.
func (m *matcher) scan(st *scanState, data []byte, open func() backend.FileSink) {
	st.nextLo, st.nextUp = -2, -2
	st.re, st.reKnown = m.p.Re, m.p.Strict == nil
	if m.p.Multiline {
		m.scanMultiline(st, data, open)
		return
	}
	switch m.mode {
	case backend.FilesWithMatches:
		if ls, _ := m.nextLine(st, data, 0); ls >= 0 {
			open().End(1)
		}
	case backend.Count:
		n := 0
		for pos := 0; ; {
			ls, le := m.nextLine(st, data, pos)
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
			ls, le := m.nextLine(st, data, pos)
			if ls < 0 {
				break
			}
			e.match(ls, le)
			pos = le + 1
		}
		e.end()
	}
}

// scanMultiline matches across lines: every line a match touches is a
// matching line; Count counts matches, as rg --count does with -U.
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
	for _, loc := range locs {
		s, end := loc[0], loc[1]
		if atEnd(data, s) {
			continue
		}
		n++
		if e == nil {
			continue
		}
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
