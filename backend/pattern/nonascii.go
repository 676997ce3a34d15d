package pattern

import (
	"encoding/binary"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// NeedsNonASCII reports whether every match of re holds a rune ≥ 0x80,
// so that text of pure ASCII cannot match (\p{Greek}, [α-ω], é): the
// native scanner skips ASCII lines for it, the index ASCII contents.
func NeedsNonASCII(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpNoMatch:
		return true
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		for _, r := range re.Rune {
			if nonASCIIRune(r, fold) {
				return true
			}
		}
	case syntax.OpCharClass:
		return len(re.Rune) > 0 && re.Rune[0] >= utf8.RuneSelf
	case syntax.OpCapture, syntax.OpPlus:
		return NeedsNonASCII(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min >= 1 && NeedsNonASCII(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if NeedsNonASCII(sub) {
				return true
			}
		}
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !NeedsNonASCII(sub) {
				return false
			}
		}
		return len(re.Sub) > 0
	}
	return false
}

// IndexNonASCII returns the offset of the first byte ≥ 0x80 at or after
// pos, or -1; eight bytes at a time.
func IndexNonASCII(data []byte, pos int) int {
	const hi = 0x8080808080808080
	i := pos
	for ; i+8 <= len(data); i += 8 {
		if binary.LittleEndian.Uint64(data[i:])&hi != 0 {
			break
		}
	}
	for ; i < len(data); i++ {
		if data[i] >= 0x80 {
			return i
		}
	}
	return -1
}

// nonASCIIRune: r, and with fold every rune of its fold orbit, is ≥ 0x80.
func nonASCIIRune(r rune, fold bool) bool {
	if r < utf8.RuneSelf {
		return false
	}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}
