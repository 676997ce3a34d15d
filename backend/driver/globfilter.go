package driver

import (
	"strconv"
	"strings"

	"github.com/fsmcp/fsmcp/backend"
)

// globType is the rg file type fs_glob defines for its own narrowing.
const globType = "fsmcpglob"

// maxNameGlobs bounds how many names one pattern's braces expand to.
const maxNameGlobs = 32

// globNarrowArgs returns rg --files arguments that narrow its listing to
// files whose name can match pattern (relative, valid doublestar), so rg
// prints tens of thousands of lines fewer on a big tree; the full pattern
// is still matched on every listed path. The names go through a file type
// (--type-add), never --glob: a type applies after the ignore rules, while
// --glob overrides them and would list ignored files. A pattern that
// cannot cross directories also bounds rg's depth. Nil: no narrowing.
func globNarrowArgs(pattern string) []string {
	var a []string
	if names := nameGlobs(pattern); names != nil {
		a = append(a, "--type-clear", globType)
		for _, n := range names {
			a = append(a, "--type-add", globType+":"+n)
		}
		a = append(a, "--type", globType)
	}
	if d := backend.GlobDepth(pattern); d > 0 {
		a = append(a, "--max-depth", strconv.Itoa(d))
	}
	return a
}

// nameGlobs returns globs of file names (rg type globs, matched on the
// name alone) that every file matching pattern matches: its last element
// with braces expanded and ? widened to * (rg matches bytes, doublestar
// code points). Nil when the element says little (only stars, or **) or
// holds syntax the two matchers read differently (escapes, classes,
// nested braces, a slash inside braces), or a ':' (rg's --type-add
// separator).
func nameGlobs(pattern string) []string {
	if strings.ContainsAny(pattern, "\\[]:\x00") {
		return nil
	}
	last, _, _ := backend.Slashes(pattern)
	elem := pattern[last+1:]
	if strings.Contains(elem, "**") {
		return nil
	}
	names := expandBraces(elem)
	for i, n := range names {
		n = strings.ReplaceAll(n, "?", "*")
		if strings.Trim(n, "*") == "" || strings.Contains(n, "/") {
			return nil // matches any name, or braces held a slash
		}
		names[i] = n
	}
	return names
}

// expandBraces expands s's brace groups (not nested) into every
// alternative; nil if they are nested, unbalanced or too many.
func expandBraces(s string) []string {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		if strings.IndexByte(s, '}') >= 0 {
			return nil
		}
		return []string{s}
	}
	end := strings.IndexByte(s[open:], '}')
	if end < 0 {
		return nil
	}
	end += open
	group := s[open+1 : end]
	if strings.IndexByte(group, '{') >= 0 || strings.IndexByte(s[:open], '}') >= 0 {
		return nil
	}
	rest := expandBraces(s[end+1:])
	if rest == nil {
		return nil
	}
	var out []string
	for _, alt := range strings.Split(group, ",") {
		for _, r := range rest {
			if len(out) == maxNameGlobs {
				return nil
			}
			out = append(out, s[:open]+alt+r)
		}
	}
	return out
}
