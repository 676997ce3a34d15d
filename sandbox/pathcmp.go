package sandbox

import (
	"unicode"
	"unicode/utf8"
)

// cutPrefixUpper is strings.CutPrefix with letters compared by their
// upper case, as Windows compares names (it upcases each character; it
// does not fold, so the Kelvin sign is not k). Runes are walked in step,
// so the rest is cut where the prefix ends in p, whatever each spelling's
// byte length.
func cutPrefixUpper(p, prefix string) (rest string, ok bool) {
	for prefix != "" {
		if p == "" {
			return "", false
		}
		a, na := utf8.DecodeRuneInString(p)
		b, nb := utf8.DecodeRuneInString(prefix)
		if a != b && unicode.ToUpper(a) != unicode.ToUpper(b) {
			return "", false
		}
		p, prefix = p[na:], prefix[nb:]
	}
	return p, true
}

// samePath reports whether a and b name the same path as the system
// compares names (cutPathPrefix).
func samePath(a, b string) bool {
	rest, ok := cutPathPrefix(a, b)
	return ok && rest == ""
}
