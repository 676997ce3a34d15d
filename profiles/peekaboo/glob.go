package peekaboo

import (
	"regexp"
	"strings"
)

// pathRegexp turns a search_path pattern into the regular expression
// peekaboo matches against "/rel" paths, case-insensitively: "." is
// literal, "?" one character but "/", "*" any run without "/", "**/" any
// number of directories, "**" anything, "{a,b}" either. Other regular
// expression syntax passes through, as in peekaboo. A pattern starting
// with "**/" may match anywhere, one with a "/" must match from the root,
// and one without matches the last name in any directory.
func pathRegexp(pattern string) (*regexp.Regexp, error) {
	expr := globToRegexp(pattern)
	switch {
	case strings.HasPrefix(pattern, "**/"):
	case strings.Contains(pattern, "/"):
		expr = "^/" + expr
	default:
		expr = "^.*/" + expr
	}
	return regexp.Compile("(?i)" + expr + "$")
}

func globToRegexp(pattern string) string {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '.':
			b.WriteString(`\.`)
		case c == '?':
			b.WriteString(`[^/]`)
		case strings.HasPrefix(pattern[i:], "**/"):
			b.WriteString(`(?:.*/)?`)
			i += 2
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(`.*`)
			i++
		case c == '*':
			b.WriteString(`[^/]*`)
		case c == '{' && strings.IndexByte(pattern[i:], '}') > 1:
			end := i + strings.IndexByte(pattern[i:], '}')
			b.WriteString(alternatives(pattern[i+1:end], globToRegexp))
			i = end
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// alternatives is "{a,b}" as "(a|b)", each alternative translated.
func alternatives(inner string, translate func(string) string) string {
	parts := strings.Split(inner, ",")
	for i, p := range parts {
		parts[i] = translate(p)
	}
	return "(" + strings.Join(parts, "|") + ")"
}

// includeRegexp turns search_content's include pattern into peekaboo's
// unanchored, case-insensitive test on the "/rel" path: "." literal, "*"
// anything (slashes too), "?" any one character, "{a,b}" either.
func includeRegexp(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile("(?i)" + includeToRegexp(pattern))
}

func includeToRegexp(pattern string) string {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '.':
			b.WriteString(`\.`)
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '{':
			end := strings.IndexByte(pattern[i:], '}')
			if end <= 1 {
				b.WriteByte(c)
				continue
			}
			b.WriteString(alternatives(pattern[i+1:i+end], includeToRegexp))
			i += end
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
