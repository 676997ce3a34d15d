package pattern

import (
	"math"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// Literal extraction: from the parsed pattern, a small set of needles
// such that every match contains at least one of them (ripgrep's regex
// crate does the same from its HIR). Lines holding no needle are never
// given to the regexp.

// Needle is one literal of a prefilter set. Fold: ASCII letters compare
// case-insensitively; every other byte exactly.
type Needle struct {
	Text string
	Fold bool
}

const (
	maxNeedles   = 64 // a set larger than this is not worth searching for
	maxNeedleLen = 64
	maxClassSet  = 8 // a class of at most this many runes expands to needles
)

// litInfo describes a sub-expression: exact is the finite set of all the
// strings it matches (exactOK); req a set one of which every match
// contains (reqOK); asserts: exact ignores an empty-width assertion.
type litInfo struct {
	exact   []Needle
	exactOK bool
	req     []Needle
	reqOK   bool
	asserts bool
}

// Needles returns the prefilter set of re (ok false: none), and
// whether finding a needle is a match by itself (the set is exactly the
// pattern's language, no assertion involved).
func Needles(re *syntax.Regexp) (set []Needle, complete, ok bool) {
	in := literalInfo(re)
	if in.exactOK && usable(in.exact) && !in.asserts {
		return in.exact, true, true
	}
	if in.reqOK && usable(in.req) {
		return in.req, false, true
	}
	if in.exactOK && usable(in.exact) {
		return in.exact, false, true
	}
	return nil, false, false
}

// usable: a set is searched for if it has no empty needle (which every
// position matches) and is small.
func usable(set []Needle) bool {
	if len(set) == 0 || len(set) > maxNeedles {
		return false
	}
	for _, n := range set {
		if n.Text == "" {
			return false
		}
	}
	return true
}

func literalInfo(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpNoMatch:
		return litInfo{exactOK: true, reqOK: true, exact: []Needle{}, req: []Needle{}}
	case syntax.OpEmptyMatch:
		return litInfo{exactOK: true, exact: []Needle{{}}}
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exactOK: true, exact: []Needle{{}}, asserts: true}
	case syntax.OpLiteral:
		return literalRunes(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
			if n > maxClassSet {
				return litInfo{}
			}
		}
		var set []Needle
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set = append(set, Needle{Text: string(r)})
			}
		}
		return exactInfo(set, false)
	case syntax.OpCapture:
		return literalInfo(re.Sub[0])
	case syntax.OpPlus:
		sub := literalInfo(re.Sub[0])
		return litInfo{req: requiredOf(sub), reqOK: sub.reqOK || exactUsable(sub)}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			sub := literalInfo(re.Sub[0])
			return litInfo{req: requiredOf(sub), reqOK: sub.reqOK || exactUsable(sub)}
		}
	case syntax.OpConcat:
		return concatInfo(re.Sub)
	case syntax.OpAlternate:
		return alternateInfo(re.Sub)
	}
	return litInfo{}
}

func exactInfo(set []Needle, asserts bool) litInfo {
	in := litInfo{exact: set, exactOK: true, asserts: asserts}
	if usable(set) {
		in.req, in.reqOK = set, true
	}
	return in
}

func exactUsable(in litInfo) bool { return in.exactOK && usable(in.exact) }

// requiredOf returns in's required set, or its exact set when usable.
func requiredOf(in litInfo) []Needle {
	if in.reqOK {
		return in.req
	}
	if exactUsable(in) {
		return in.exact
	}
	return nil
}

// literalRunes handles a literal string. A case-folded one is the
// product of its runes' fold sets: a letter whose fold orbit is ASCII is
// one folded needle byte; any other rune stands for each rune of its
// orbit ("s" is "s" folded or "ſ", "k" is "k" folded or the Kelvin sign).
// When that product is too large, the product of a prefix or the longest
// run of ASCII-folding runes is required instead.
func literalRunes(runes []rune, fold bool) litInfo {
	if !fold {
		s := string(runes)
		if len(s) > maxNeedleLen {
			s = s[:maxNeedleLen] // a prefix is still required
			return litInfo{req: []Needle{{Text: s}}, reqOK: true}
		}
		return exactInfo([]Needle{{Text: s}}, false)
	}
	set := []Needle{{}}
	for _, r := range runes {
		p, ok := product(set, foldSet(r))
		if !ok {
			// The set of a prefix is required too; keep the cheaper.
			run := foldRun(runes)
			if usable(set) && (!run.reqOK || setCost(set) < setCost(run.req)) {
				return litInfo{req: set, reqOK: true}
			}
			return run
		}
		set = p
	}
	return exactInfo(set, false)
}

// foldSet returns the needles matching rune r case-insensitively.
func foldSet(r rune) []Needle {
	if simpleFold(r) {
		return []Needle{{Text: string(r), Fold: Lower(byte(r)) != Upper(byte(r))}}
	}
	var set []Needle
	f := r
	for {
		if f < utf8.RuneSelf && Lower(byte(f)) != Upper(byte(f)) {
			set = append(set, Needle{Text: string(Lower(byte(f))), Fold: true})
		} else {
			set = append(set, Needle{Text: string(f)})
		}
		if f = unicode.SimpleFold(f); f == r {
			return dedupe(set)
		}
	}
}

// foldRun returns the longest run of runes whose fold orbit is ASCII,
// as a required folded needle.
func foldRun(runes []rune) litInfo {
	best, cur := "", []byte{}
	for _, r := range runes {
		if !simpleFold(r) {
			cur = cur[:0]
			continue
		}
		if cur = append(cur, byte(r)); len(cur) > len(best) {
			best = string(cur)
		}
	}
	if len(best) > maxNeedleLen {
		best = best[:maxNeedleLen]
	}
	if best == "" {
		return litInfo{}
	}
	return litInfo{req: []Needle{{Text: best, Fold: true}}, reqOK: true}
}

// simpleFold reports whether r's case-fold orbit is r and its ASCII
// other case only.
func simpleFold(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func concatInfo(subs []*syntax.Regexp) litInfo {
	out := litInfo{exactOK: true, exact: []Needle{{}}}
	var cands [][]Needle
	run := []Needle{{}} // exact set of the current run of exact subs
	endRun := func() {
		if usable(run) {
			cands = append(cands, run)
		}
	}
	for _, sub := range subs {
		in := literalInfo(sub)
		if in.exactOK {
			if p, ok := product(run, in.exact); ok {
				run = p
			} else {
				endRun()
				run = in.exact
			}
			if out.exactOK {
				if p, ok := product(out.exact, in.exact); ok {
					out.exact, out.asserts = p, out.asserts || in.asserts
				} else {
					out.exactOK = false
				}
			}
		} else {
			out.exactOK = false
			// x+ and x{n,}: a match's first copy ends the run, its last
			// copy starts the next one.
			if sub.Op == syntax.OpPlus || (sub.Op == syntax.OpRepeat && sub.Min >= 1) {
				if si := literalInfo(sub.Sub[0]); si.exactOK {
					if p, ok := product(run, si.exact); ok {
						run = p
					}
					endRun()
					run = si.exact
					if req := requiredOf(in); req != nil {
						cands = append(cands, req)
					}
					continue
				}
			}
			endRun()
			run = []Needle{{}}
			if req := requiredOf(in); req != nil {
				cands = append(cands, req)
			}
		}
	}
	endRun()
	if !out.exactOK {
		out.exact = nil
	}
	best, bestCost := []Needle(nil), math.Inf(1)
	for _, c := range cands {
		if cost := setCost(c); cost < bestCost {
			best, bestCost = c, cost
		}
	}
	if best != nil {
		out.req, out.reqOK = best, true
	}
	return out
}

// product returns the concatenations of every a with every b, or ok
// false when that is too large.
func product(a, b []Needle) ([]Needle, bool) {
	if len(a)*len(b) > maxNeedles {
		return nil, false
	}
	out := make([]Needle, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			if len(x.Text)+len(y.Text) > maxNeedleLen {
				return nil, false
			}
			out = append(out, foldNorm(Needle{Text: x.Text + y.Text, Fold: x.Fold || y.Fold}))
		}
	}
	return dedupe(out), true
}

// foldNorm lower-cases a folded needle, so that equal needles compare
// equal, and unfolds one without ASCII letters.
func foldNorm(n Needle) Needle {
	if !n.Fold {
		return n
	}
	b := []byte(n.Text)
	n.Fold = false
	for i, c := range b {
		if Lower(c) != Upper(c) {
			b[i], n.Fold = Lower(c), true
		}
	}
	n.Text = string(b)
	return n
}

func dedupe(set []Needle) []Needle {
	seen := make(map[Needle]bool, len(set))
	out := set[:0]
	for _, n := range set {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func alternateInfo(subs []*syntax.Regexp) litInfo {
	out := litInfo{exactOK: true, reqOK: true}
	for _, sub := range subs {
		in := literalInfo(sub)
		if out.exactOK && in.exactOK && len(out.exact)+len(in.exact) <= maxNeedles {
			out.exact = append(out.exact, in.exact...)
			out.asserts = out.asserts || in.asserts
		} else {
			out.exactOK, out.exact = false, nil
		}
		if req := requiredOf(in); out.reqOK && req != nil && len(out.req)+len(req) <= maxNeedles {
			out.req = append(out.req, req...)
		} else {
			out.reqOK, out.req = false, nil
		}
	}
	if out.exactOK {
		out.exact = dedupe(out.exact)
	}
	if out.reqOK {
		out.req = dedupe(out.req)
	}
	return out
}

// byteFreq estimates how often byte c occurs in source text, from its
// rank (byteRank: 0 rarest, 255 most common): about twice as common
// every 12 ranks, as measured.
func byteFreq(c byte) float64 { return math.Exp2((float64(byteRank[c]) - 255) / 12) }

// AnchorCost is the estimated frequency of candidates for byte c of a
// needle (both cases if fold).
func AnchorCost(c byte, fold bool) float64 {
	if fold && Lower(c) != Upper(c) {
		return byteFreq(Lower(c)) + byteFreq(Upper(c))
	}
	return byteFreq(c)
}

// NeedleAnchor returns the index of n's byte with the fewest expected
// occurrences, and that estimate.
func NeedleAnchor(n Needle) (int, float64) {
	best, bestCost := 0, math.Inf(1)
	for i := 0; i < len(n.Text); i++ {
		if c := AnchorCost(n.Text[i], n.Fold); c < bestCost {
			best, bestCost = i, c
		}
	}
	return best, bestCost
}

// setCost estimates the candidates a set yields per byte of text.
func setCost(set []Needle) float64 {
	cost := 0.0
	for _, n := range set {
		_, c := NeedleAnchor(n)
		cost += c
	}
	return cost
}

// MatchesNewline reports whether some match of re may hold a '\n': a
// literal newline, a class admitting it, or a dot under (?s). rg asks
// the same of a pattern (the bytes it can never match) and searches line
// by line, also under -U, when the line terminator is not among them.
func MatchesNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
		return false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
		return false
	case syntax.OpAnyChar:
		return true
	}
	for _, sub := range re.Sub {
		if MatchesNewline(sub) {
			return true
		}
	}
	return false
}

// ASCIIOnly returns a copy of re for text known to be ASCII: classes and
// "." keep only their ASCII runes, literals that need a non-ASCII rune
// match nothing. On an ASCII line it matches exactly as re does, and
// faster: Unicode classes such as the rewritten \w are long range lists
// that Go's regexp searches for every rune. changed is false when re
// has nothing to drop.
func ASCIIOnly(re *syntax.Regexp) (out *syntax.Regexp, changed bool) {
	c := *re
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		c.Op, c.Rune = syntax.OpCharClass, []rune{0, utf8.RuneSelf - 1}
		if re.Op == syntax.OpAnyCharNotNL {
			c.Rune = []rune{0, '\n' - 1, '\n' + 1, utf8.RuneSelf - 1}
		}
		return &c, true
	case syntax.OpCharClass:
		var rs []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] < utf8.RuneSelf {
				rs = append(rs, re.Rune[i], min(re.Rune[i+1], utf8.RuneSelf-1))
			}
		}
		if len(rs) == len(re.Rune) && (len(rs) == 0 || rs[len(rs)-1] == re.Rune[len(re.Rune)-1]) {
			return re, false
		}
		c.Rune = rs
		if len(rs) == 0 {
			c.Op = syntax.OpNoMatch
		}
		return &c, true
	}
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, sub := range re.Sub {
		var ch bool
		c.Sub[i], ch = ASCIIOnly(sub)
		changed = changed || ch
	}
	if !changed {
		return re, false
	}
	return &c, true
}

// Lower is c in lower case if it is an ASCII letter.
func Lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Upper is c in upper case if it is an ASCII letter.
func Upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
