package ignore

import "github.com/fsmcp/fsmcp/fault"

// MaxGlobAlternatives bounds how many plain patterns one glob's braces
// stand for ({a,b}{c,d} is four). doublestar tries alternatives by
// backtracking, so a name can cost their product: {a,a} twenty-four times
// over took seconds per path. Every glob a client gives (fs_glob, a
// listing's filter, fs_grep's globs, a watch's patterns) is checked here
// first; an ignore-file line past it is dropped.
const MaxGlobAlternatives = 256

// CheckGlob refuses a glob whose braces stand for more than
// MaxGlobAlternatives patterns, counted without expanding them.
func CheckGlob(pattern string) error {
	if n := GlobAlternatives(pattern); n > MaxGlobAlternatives {
		return fault.Errorf(fault.Invalid, "", "glob pattern %q stands for more than %d patterns ({a,b} groups multiply); write fewer or shorter brace groups", clip(pattern), MaxGlobAlternatives)
	}
	return nil
}

// CheckGlobs is CheckGlob for each of patterns.
func CheckGlobs(patterns ...string) error {
	for _, p := range patterns {
		if err := CheckGlob(p); err != nil {
			return err
		}
	}
	return nil
}

// GlobAlternatives is how many plain patterns pattern's brace groups
// expand to (nested groups too), saturating just past
// MaxGlobAlternatives. Escapes and [classes] hold no groups.
func GlobAlternatives(pattern string) int {
	n, _ := alternatives(pattern, 0, false)
	return n
}

// alternatives counts the sequence starting at i, up to its end or, inside
// a group, the ',' or '}' that ends the alternative; next is where it
// stopped.
func alternatives(p string, i int, inGroup bool) (n, next int) {
	const sat = MaxGlobAlternatives + 1
	n = 1
	for i < len(p) {
		switch p[i] {
		case '\\':
			i += 2
		case '[':
			j := i + 1
			if j < len(p) && (p[j] == '!' || p[j] == '^') {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j < len(p) {
				i = j + 1
			} else {
				i++
			}
		case '{':
			sum := 0
			i++
			for {
				c, j := alternatives(p, i, true)
				sum = min(sum+c, sat)
				i = j
				if i < len(p) && p[i] == ',' {
					i++
					continue
				}
				if i < len(p) { // '}'
					i++
				}
				break
			}
			n = min(n*sum, sat)
		case ',', '}':
			if inGroup {
				return n, i
			}
			i++
		default:
			i++
		}
	}
	return n, i
}

// clip shortens a pattern quoted in an error.
func clip(s string) string {
	const most = 80
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
}
