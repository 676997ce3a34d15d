package index

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// A run is bytes every match of a pattern holds in a row: per position,
// the bytes that may stand there (a letter under -i has two). The
// trigram query asks only that a content hold each trigram somewhere;
// a run also asks, through the postings' pair masks, that each of its
// trigrams be followed somewhere by two bytes the run allows next.
type run [][]byte

// A clause holds for a content that may hold at least one of its runs.
type clause []run

const (
	minRun      = 5  // shorter runs ask nothing the trigrams do not
	maxRunCheck = 16 // trigrams checked per run: a long literal's first ones say enough
	maxVariants = 64 // spellings of one trigram (-i, classes) checked at most
	maxClassLen = 4  // a class of more runes breaks a run
)

// chains returns clauses every match of re satisfies.
func chains(re *syntax.Regexp) []clause {
	var c chainer
	c.add(re)
	c.flush()
	return c.out
}

type chainer struct {
	out []clause
	cur run
}

func (c *chainer) flush() {
	if len(c.cur) >= minRun {
		c.out = append(c.out, clause{c.cur})
	}
	c.cur = nil
}

// end ends the run at a rune whose spellings differ in length (ſ for s
// under -i): its first bytes can still follow the run's last trigram.
func (c *chainer) end(first []byte) {
	if len(first) > 0 && len(c.cur) >= minRun-1 {
		c.cur = append(c.cur, first)
	}
	c.flush()
}

// edgeBytes is the first and the last byte of each spelling of r: what
// may follow the run before r, and what starts the run after it.
func edgeBytes(r rune, fold bool) (first, last []byte) {
	var b [utf8.UTFMax]byte
	f := r
	for {
		if n := utf8.EncodeRune(b[:], f); utf8.ValidRune(f) {
			first, last = appendNew(first, b[0]), appendNew(last, b[n-1])
		}
		if !fold {
			return first, last
		}
		if f = unicode.SimpleFold(f); f == r {
			return first, last
		}
	}
}

// add walks re as a sequence: what it consumes in a known order extends
// the current run, and anything else ends it.
func (c *chainer) add(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		for _, r := range re.Rune {
			if pos, ok := spellings([]rune{r}, fold); ok {
				c.cur = append(c.cur, pos...)
			} else {
				first, last := edgeBytes(r, fold)
				c.end(first)
				if len(last) > 0 {
					c.cur = run{last}
				}
			}
		}
	case syntax.OpCharClass:
		if pos, ok := classSpellings(re.Rune); ok {
			c.cur = append(c.cur, pos...)
		} else {
			c.flush()
		}
	case syntax.OpCapture:
		c.add(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			c.add(sub)
		}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		// Zero-width: the bytes on either side stay adjacent.
	case syntax.OpPlus:
		c.flush()
		c.out = append(c.out, chains(re.Sub[0])...)
	case syntax.OpRepeat:
		c.flush()
		if re.Min >= 1 {
			c.out = append(c.out, chains(re.Sub[0])...)
		}
	case syntax.OpAlternate:
		c.flush()
		var either clause
		for _, sub := range re.Sub {
			best := bestClause(chains(sub))
			if best == nil {
				return // a branch that asks nothing: the alternation asks nothing
			}
			either = append(either, best...)
		}
		c.out = append(c.out, either)
	default:
		c.flush()
	}
}

// bestClause is the clause whose shortest run is longest (the one the
// masks narrow most), or nil.
func bestClause(cs []clause) clause {
	var best clause
	bestLen := 0
	for _, cl := range cs {
		n := len(cl[0])
		for _, r := range cl[1:] {
			n = min(n, len(r))
		}
		if n > bestLen {
			best, bestLen = cl, n
		}
	}
	return best
}

// spellings is the byte positions runes rs take in UTF-8, folded as Go's
// matcher folds them; false when the spellings differ in length (ſ for
// s, the Kelvin sign for k), which a run of positions cannot say.
func spellings(rs []rune, fold bool) (run, bool) {
	all := rs
	if fold {
		all = nil
		for _, r := range rs {
			all = append(all, r)
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				all = append(all, f)
			}
		}
	}
	n := utf8.RuneLen(all[0])
	if n < 0 || len(all) > maxClassLen*2 {
		return nil, false
	}
	pos := make(run, n)
	var b [utf8.UTFMax]byte
	for _, r := range all {
		if utf8.RuneLen(r) != n {
			return nil, false
		}
		utf8.EncodeRune(b[:], r)
		for i := range n {
			pos[i] = appendNew(pos[i], b[i])
		}
	}
	return pos, true
}

// classSpellings is the byte positions of a small class's runes (given
// as ranges, folding already applied by the parser).
func classSpellings(ranges []rune) (run, bool) {
	var rs []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] >= maxClassLen {
			return nil, false
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 || len(rs) > maxClassLen {
		return nil, false
	}
	return spellings(rs, false)
}

func appendNew(set []byte, b byte) []byte {
	for _, x := range set {
		if x == b {
			return set
		}
	}
	return append(set, b)
}

// chain keeps the ids (ascending) whose contents may hold a run of every
// clause: each of the run's trigrams is followed there by two bytes the
// run allows next, as far as the postings' pair masks tell.
func (ix *Index) chain(ids []uint32, cls []clause) []uint32 {
	if len(ids) == 0 {
		return ids
	}
	keep := make([]bool, len(ids))
	ok := make([]bool, len(ids))
	next := make([]uint8, len(ids))
	for _, cl := range cls {
		clear(keep)
		for _, r := range cl {
			for i := range ok {
				ok[i] = true
			}
			for i := 0; i+minRun <= len(r) && i < maxRunCheck; i++ {
				variants := len(r[i]) * len(r[i+1]) * len(r[i+2])
				if variants > maxVariants {
					continue
				}
				var want uint8
				for _, a := range r[i+3] {
					for _, b := range r[i+4] {
						want |= pairBit(a, b)
					}
				}
				clear(next)
				for _, a := range r[i] {
					for _, b := range r[i+1] {
						for _, c := range r[i+2] {
							ix.maskInto(uint32(a)<<16|uint32(b)<<8|uint32(c), ids, next)
						}
					}
				}
				for k := range ok {
					ok[k] = ok[k] && next[k]&want != 0
				}
			}
			for k := range keep {
				keep[k] = keep[k] || ok[k]
			}
		}
		out := ids[:0:0]
		for k, id := range ids {
			if keep[k] {
				out = append(out, id)
			}
		}
		ids = out
		if len(ids) == 0 {
			return ids
		}
		keep, ok, next = keep[:len(ids)], ok[:len(ids)], next[:len(ids)]
	}
	return ids
}

// maskInto ORs trigram t's pair mask in each content of ids
// (ascending) into masks, index for index.
func (ix *Index) maskInto(t uint32, ids []uint32, masks []uint8) {
	k := 0
	ix.postings(t, func(id uint32, m uint8) bool {
		for k < len(ids) && ids[k] < id {
			k++
		}
		if k < len(ids) && ids[k] == id {
			masks[k] |= m
		}
		return k < len(ids)
	})
}
