package backend

import (
	"os"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// GlobBase splits a glob query's pattern into the directory to walk
// (search path + the pattern's static prefix) and the pattern relative to
// it. ok is false when nothing can match: a bad pattern, a missing base,
// a base inside .git or reached through a symlink.
func GlobBase(path, pattern string) (base, rest string, ok bool) {
	pattern = strings.TrimPrefix(pattern, "./")
	if pattern == "" || !doublestar.ValidatePattern(pattern) {
		return "", "", false
	}
	b, rest := doublestar.SplitPattern(pattern)
	base = path
	if b != "." && b != "" {
		for _, el := range strings.Split(b, "/") {
			// ".git" is ignore.GitDir, spelled again here: backend, the
			// search contract, imports no fsmcp package but internal/escape.
			if el == ".git" || el == ".." {
				return "", "", false
			}
		}
		base = strings.TrimSuffix(path, "/") + "/" + b
	}
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		return "", "", false
	}
	// The prefix's elements are walked, not followed: a symlink there is
	// not descended into, as a symlink met while walking is not.
	if b != "." && b != "" {
		cur := strings.TrimSuffix(path, "/")
		for _, el := range strings.Split(b, "/") {
			cur += "/" + el
			fi, err := os.Lstat(cur)
			if err != nil || !fi.IsDir() {
				return "", "", false
			}
		}
	}
	return base, rest, true
}

// GlobMatcher returns a matcher of '/'-separated relative paths for a
// valid doublestar pattern, with fast paths for the shapes agents use
// most ("**/*.go", "**/name", "*.go", "name").
func GlobMatcher(pattern string) func(rel string) bool {
	const meta = `*?[{\`
	if rest, ok := strings.CutPrefix(pattern, "**/"); ok {
		switch {
		case len(rest) > 1 && rest[0] == '*' && !strings.ContainsAny(rest[1:], meta+"/"):
			suffix := rest[1:] // **/*.go: the last element ends with .go
			return func(rel string) bool { return strings.HasSuffix(rel, suffix) }
		case rest != "" && !strings.ContainsAny(rest, meta+"/"):
			slashRest := "/" + rest
			return func(rel string) bool { // **/name
				return rel == rest || strings.HasSuffix(rel, slashRest)
			}
		}
	}
	if len(pattern) > 1 && pattern[0] == '*' && !strings.ContainsAny(pattern[1:], meta+"/") {
		suffix := pattern[1:] // *.go: top level only
		return func(rel string) bool { return strings.HasSuffix(rel, suffix) && !strings.Contains(rel, "/") }
	}
	if !strings.ContainsAny(pattern, meta) {
		return func(rel string) bool { return rel == pattern }
	}
	return func(rel string) bool { return doublestar.MatchUnvalidated(pattern, rel) }
}

// GlobDepth is the most directories deep a file matching pattern can
// lie (1: directly in the base); 0 when unbounded (a ** element) or
// when braces hold a slash. fs_glob reads no directory this deep or
// deeper.
func GlobDepth(pattern string) int {
	if strings.Contains(pattern, "**") {
		return 0
	}
	_, n, braced := Slashes(pattern)
	if braced {
		return 0
	}
	return n + 1
}

// Slashes scans pattern's '/'s outside braces: the index of the last
// (-1: none), how many there are, and whether a '/' lies inside braces.
func Slashes(pattern string) (last, n int, braced bool) {
	last, depth := -1, 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '{':
			depth++
		case '}':
			depth--
		case '/':
			if depth > 0 {
				braced = true
			} else {
				last, n = i, n+1
			}
		}
	}
	return last, n, braced
}
