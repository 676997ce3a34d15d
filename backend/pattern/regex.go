package pattern

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/fault"
)

// Pattern is a grep pattern compiled the way both backends read it.
//
// Go's regexp (RE2) accepts ripgrep's default syntax except look-around
// and backreferences — which ripgrep's default engine rejects too — so a
// pattern is validated here before either backend runs, and both accept
// exactly the same set. Two rewrites keep Go's matches equal to rg's:
//   - \d, \w, \s (and \D, \W, \S outside brackets) are Unicode-aware in
//     rg and ASCII in Go, so they are rewritten to Unicode classes;
//     \b is ASCII in Go and cannot be rewritten, so the rg backend
//     passes rg an ASCII \b instead ((?-u:\b), see ForRG).
//   - without Multiline, rg never lets a match cross a line: a literal
//     newline in the pattern is an error, classes lose '\n', and "."
//     never matches it. Lines are then matched against the whole buffer
//     with ^ and $ as line anchors, like rg.
type Pattern struct {
	// Re matches whole buffers (^ and $ match at line boundaries).
	Re *regexp.Regexp
	// Strict is Re for text that is not valid UTF-8: "." and classes
	// do not match invalid bytes, as in rg. Nil when Re has no class or
	// "." for it to differ in.
	Strict *regexp.Regexp
	// Lit is a literal every match contains (nil: none known). If
	// LitFold, it is ASCII and matched case-insensitively.
	Lit     []byte
	LitFold bool
	// Multiline as in the query.
	Multiline bool
	// RG is the pattern spelled for rg (ForRG): what its argv, or the
	// pipe a long pattern goes on, carries.
	RG string
	// tree is Re's text parsed as regexp.Compile parsed it, and simple
	// that tree simplified; both made once, by Compile.
	tree, simple *syntax.Regexp
}

// Syntax returns the compiled pattern's syntax tree, Re's text parsed as
// regexp.Compile parsed it, once, when the pattern was compiled: the
// tree the index plans trigrams from. Every stage of a search shares it,
// so it is read, never changed (the analyses here copy what they
// change). nil if it could not be had, which cannot happen: Re was
// compiled from this text.
func (p *Pattern) Syntax() *syntax.Regexp { return p.tree }

// Simple is Syntax simplified (counted repetitions expanded): the tree
// the literal analysis (Needles, ASCIIOnly, MatchesNewline) reads;
// shared and read-only as Syntax, nil as Syntax.
func (p *Pattern) Simple() *syntax.Regexp { return p.simple }

// Of is the pattern q carries (GrepQuery.Compiled), compiled once at the
// search stack's door (Compiling); a query that comes without one (a
// stage driven alone, by a test or a benchmark) is compiled here.
func Of(q backend.GrepQuery) (*Pattern, error) {
	if p, ok := q.Compiled.(*Pattern); ok && p != nil {
		return p, nil
	}
	return Compile(q)
}

// Compile compiles q's pattern with q's flags (IgnoreCase,
// FixedStrings, Multiline). Errors name the unsupported construct.
func Compile(q backend.GrepQuery) (*Pattern, error) {
	src := q.Pattern
	if q.FixedStrings {
		src = regexp.QuoteMeta(src)
	} else {
		src = unicodePerlClasses(src)
	}
	flags := syntax.Perl &^ syntax.OneLine
	if q.IgnoreCase {
		flags |= syntax.FoldCase
	}
	if q.Multiline {
		flags |= syntax.DotNL
	}
	re, err := syntax.Parse(src, flags)
	if err != nil {
		return nil, patternError(q.Pattern, err)
	}
	if !q.Multiline {
		if err := noNewline(re); err != nil {
			return nil, err
		}
	}
	re = re.Simplify()
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return nil, patternError(q.Pattern, err)
	}
	p := &Pattern{Re: compiled, Multiline: q.Multiline, RG: ForRG(q)}
	if p.tree, err = syntax.Parse(compiled.String(), syntax.Perl); err == nil {
		p.simple = p.tree.Simplify()
	}
	if strictSrc := strictUTF8(re); strictSrc != re.String() {
		if p.Strict, err = regexp.Compile(strictSrc); err != nil {
			return nil, patternError(q.Pattern, err)
		}
	}
	if lit, fold := requiredLiteral(re); len(lit) > 0 {
		s := string(lit)
		if !fold || isASCII(s) {
			p.Lit, p.LitFold = []byte(s), fold
		}
	}
	return p, nil
}

// patternError turns a Go regexp error into one clear sentence.
func patternError(pattern string, err error) error {
	se, ok := err.(*syntax.Error)
	if !ok {
		return fault.Errorf(fault.Invalid, "", "invalid regex %q: %v", pattern, err)
	}
	switch {
	case (se.Code == syntax.ErrInvalidPerlOp || se.Code == syntax.ErrInvalidNamedCapture) &&
		(strings.HasPrefix(se.Expr, "(?=") || strings.HasPrefix(se.Expr, "(?!") ||
			strings.HasPrefix(se.Expr, "(?<=") || strings.HasPrefix(se.Expr, "(?<!")):
		construct := se.Expr[:3]
		if strings.HasPrefix(se.Expr, "(?<") {
			construct = se.Expr[:4]
		}
		return fault.Errorf(fault.Invalid, "", "invalid regex %q: look-around %q is not supported (ripgrep's default regex engine and fsmcp's native one have no look-ahead or look-behind)", pattern, construct)
	case se.Code == syntax.ErrInvalidEscape && len(se.Expr) == 2 && se.Expr[1] >= '1' && se.Expr[1] <= '9',
		se.Code == syntax.ErrInvalidEscape && strings.HasPrefix(se.Expr, `\k`):
		return fault.Errorf(fault.Invalid, "", "invalid regex %q: backreference %q is not supported (ripgrep's default regex engine and fsmcp's native one have no backreferences)", pattern, se.Expr)
	}
	return fault.Errorf(fault.Invalid, "", "invalid regex %q: %s: %q", pattern, se.Code, se.Expr)
}

// noNewline applies rg's line-oriented rules to re in place.
func noNewline(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return fault.Errorf(fault.Invalid, "", `invalid regex: the pattern contains a newline ("\n"), which can only match with multiline set`)
			}
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo <= '\n' && '\n' <= hi {
				if lo < '\n' {
					out = append(out, lo, '\n'-1)
				}
				if hi > '\n' {
					out = append(out, '\n'+1, hi)
				}
				continue
			}
			out = append(out, lo, hi)
		}
		re.Rune = out
		if len(out) == 0 {
			re.Op = syntax.OpNoMatch
		}
	}
	for _, sub := range re.Sub {
		if err := noNewline(sub); err != nil {
			return err
		}
	}
	return nil
}

// strictUTF8 returns the source of re with "." and classes kept from
// matching bytes that are not UTF-8, as in rg's (Unicode) regex engine,
// where such a byte matches nothing but itself. Go reads it as U+FFFD, so
// U+FFFD is taken out of every class; the native scanner uses this form
// only for files that are not valid UTF-8 (where a genuine U+FFFD is
// unlikely), and the plain form elsewhere.
func strictUTF8(re *syntax.Regexp) string {
	c := copyRegexp(re)
	noInvalidUTF8(c)
	return c.String()
}

func copyRegexp(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Rune = append([]rune(nil), re.Rune...)
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, sub := range re.Sub {
		c.Sub[i] = copyRegexp(sub)
	}
	return &c
}

func noInvalidUTF8(re *syntax.Regexp) {
	const bad = utf8.RuneError
	switch re.Op {
	case syntax.OpAnyChar:
		re.Op, re.Rune = syntax.OpCharClass, []rune{0, bad - 1, bad + 1, unicode.MaxRune}
	case syntax.OpAnyCharNotNL:
		re.Op, re.Rune = syntax.OpCharClass, []rune{0, '\n' - 1, '\n' + 1, bad - 1, bad + 1, unicode.MaxRune}
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo <= bad && bad <= hi {
				if lo < bad {
					out = append(out, lo, bad-1)
				}
				if hi > bad {
					out = append(out, bad+1, hi)
				}
				continue
			}
			out = append(out, lo, hi)
		}
		re.Rune = out
		if len(out) == 0 {
			re.Op = syntax.OpNoMatch
		}
	}
	for _, sub := range re.Sub {
		noInvalidUTF8(sub)
	}
}

// requiredLiteral returns the longest literal that every match of re
// must contain, and whether it is case-folded.
func requiredLiteral(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []rune
		var bestFold bool
		for _, sub := range re.Sub {
			lit, fold := requiredLiteral(sub)
			// Prefer case-sensitive literals: bytes.Index is fastest.
			if len(lit) > 0 && (best == nil || (bestFold && !fold) || (fold == bestFold && len(lit) > len(best))) {
				best, bestFold = lit, fold
			}
		}
		return best, bestFold
	}
	return nil, false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Unicode versions of the Perl classes, as in Rust's regex crate.
const (
	uniWord  = `\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\x{200C}\x{200D}`
	uniDigit = `\p{Nd}`
	uniSpace = `\t\n\v\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`
)

// unicodePerlClasses rewrites \d \w \s (and their negations outside
// brackets) to Unicode classes, leaving every other escape alone.
func unicodePerlClasses(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	return rewriter{escape: unicodeEscape}.apply(p)
}

func unicodeEscape(n byte, inClass bool) string {
	switch n {
	case 'd':
		return uniDigit
	case 'D':
		return `\P{Nd}`
	case 'w':
		if inClass {
			return uniWord
		}
		return "[" + uniWord + "]"
	case 's':
		if inClass {
			return uniSpace
		}
		return "[" + uniSpace + "]"
	case 'W':
		if !inClass {
			return "[^" + uniWord + "]"
		}
	case 'S':
		if !inClass {
			return "[^" + uniSpace + "]"
		}
	}
	return ""
}

// ForRG returns the pattern text handed to rg for q, rewritten where
// ripgrep 13's regex syntax and Go's differ, so both backends accept and
// match the same patterns: \b and \B become ASCII word boundaries
// ((?-u:\b)), which is what Go's regexp implements; (?<name>...) becomes
// (?P<name>...); \Q...\E is quoted.
func ForRG(q backend.GrepQuery) string {
	p := q.Pattern
	if q.FixedStrings || !strings.ContainsAny(p, `\(`) {
		return p
	}
	return rewriter{escape: asciiBoundary, quote: regexp.QuoteMeta, named: true}.apply(p)
}

func asciiBoundary(n byte, inClass bool) string {
	if (n == 'b' || n == 'B') && !inClass {
		return `(?-u:\` + string(n) + `)`
	}
	return ""
}

// rewriter walks a pattern's escapes and bracket classes for the two
// rewrites above, copying everything its hooks leave alone.
type rewriter struct {
	// escape returns what to write for a backslash escape \n (inClass
	// says whether it stands in brackets), or "" to keep it as is.
	escape func(n byte, inClass bool) string
	// quote, if set, replaces \Q...\E outside brackets by its quoted
	// body; otherwise \Q...\E is copied verbatim (Go's syntax has it).
	quote func(lit string) string
	// named turns (?<name> into (?P<name>.
	named bool
}

func (r rewriter) apply(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			i++
			if n == 'Q' && (r.quote == nil || !inClass) {
				stop, body := len(p), p[i+1:] // stop: just past the quoted run
				if end := strings.Index(p[i+1:], `\E`); end >= 0 {
					stop, body = i+1+end+2, p[i+1:i+1+end]
				}
				if r.quote != nil {
					b.WriteString(r.quote(body))
				} else {
					b.WriteString(p[i-1 : stop])
				}
				i = stop - 1
				continue
			}
			if rep := r.escape(n, inClass); rep != "" {
				b.WriteString(rep)
			} else {
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case c == '(' && r.named && !inClass && strings.HasPrefix(p[i:], "(?<") && !strings.HasPrefix(p[i:], "(?<=") && !strings.HasPrefix(p[i:], "(?<!"):
			b.WriteString("(?P<")
			i += 2
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is literal.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '[' && inClass && i+1 < len(p) && p[i+1] == ':':
			// [:alpha:] inside a class
			if end := strings.Index(p[i:], ":]"); end >= 0 {
				b.WriteString(p[i : i+end+2])
				i += end + 1
				continue
			}
			b.WriteByte(c)
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
