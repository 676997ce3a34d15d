package filesystemmcp

import (
	"regexp"
	"strings"

	"github.com/fsmcp/fsmcp/files"
)

// jsReplacement is the replacement text of JavaScript's String.replace:
// "$$" a dollar, "$&" the match, "$`" and "$'" the text before and after
// it, "$1".."$99" a group, "$<name>" a named group (an unmatched group is
// empty); any other "$" is itself.
func jsReplacement(repl string, re *regexp.Regexp) func(b *files.Builder, content string, m []int) {
	if !strings.Contains(repl, "$") {
		return func(b *files.Builder, _ string, _ []int) { b.WriteString(repl) }
	}
	named := false
	for _, n := range re.SubexpNames() {
		named = named || n != ""
	}
	return func(b *files.Builder, content string, m []int) {
		group := func(k int) string {
			if m[2*k] < 0 {
				return ""
			}
			return content[m[2*k]:m[2*k+1]]
		}
		groups := len(m)/2 - 1
		for i := 0; i < len(repl); i++ {
			c := repl[i]
			if c != '$' || i+1 == len(repl) {
				b.WriteByte(c)
				continue
			}
			switch n := repl[i+1]; {
			case n == '$':
				b.WriteByte('$')
				i++
			case n == '&':
				b.WriteString(content[m[0]:m[1]])
				i++
			case n == '`':
				b.WriteString(content[:m[0]])
				i++
			case n == '\'':
				b.WriteString(content[m[1]:])
				i++
			case isDigit(n):
				if i+2 < len(repl) && isDigit(repl[i+2]) {
					if k := int(n-'0')*10 + int(repl[i+2]-'0'); k >= 1 && k <= groups {
						b.WriteString(group(k))
						i += 2
						continue
					}
				}
				if k := int(n - '0'); k >= 1 && k <= groups {
					b.WriteString(group(k))
					i++
					continue
				}
				b.WriteByte('$')
			case n == '<' && named:
				end := strings.IndexByte(repl[i+2:], '>')
				if end < 0 {
					b.WriteByte('$')
					continue
				}
				if k := re.SubexpIndex(repl[i+2 : i+2+end]); k > 0 {
					b.WriteString(group(k))
				}
				i += 2 + end
			default:
				b.WriteByte('$')
			}
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
