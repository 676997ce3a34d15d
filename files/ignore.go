package files

import (
	"bufio"
	"bytes"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/fsmcp/fsmcp/sandbox"
)

// The listing walkers (fs_list, resources/list) skip .git and gitignored
// directories. The matcher is go-git's plumbing/format/gitignore, a
// well-kept implementation of git's rules; the search backend has its own
// ripgrep-compatible one, and the two can merge once it lands.

// gitDir is never listed or descended into.
const gitDir = ".git"

// Ignores holds the gitignore patterns in force at one directory: those of
// the .gitignore files from the root down to it.
type Ignores struct {
	patterns []gitignore.Pattern
	matcher  gitignore.Matcher
}

// IgnoresFor reads the .gitignore files from dir's root down to dir.
func IgnoresFor(dir *sandbox.Path) *Ignores {
	ig := &Ignores{}
	parts := []string{}
	if dir.Rel != "." {
		parts = strings.Split(dir.Rel, "/")
	}
	cur := &sandbox.Path{Root: dir.Root, Rel: ".", Abs: dir.Root.Path}
	ig = ig.Child(cur)
	for _, p := range parts {
		cur = cur.Join(p)
		ig = ig.Child(cur)
	}
	return ig
}

// Child returns the patterns in force in dir, a child directory of the one
// ig describes: ig's plus dir's own .gitignore.
func (ig *Ignores) Child(dir *sandbox.Path) *Ignores {
	data, err := dir.Join(".gitignore").ReadFile(1 << 20)
	if err != nil || len(data) == 0 {
		return ig
	}
	var domain []string
	if dir.Rel != "." {
		domain = strings.Split(dir.Rel, "/")
	}
	ps := append([]gitignore.Pattern(nil), ig.patterns...)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return &Ignores{patterns: ps, matcher: gitignore.NewMatcher(ps)}
}

// Ignored reports whether rel (slash-separated, relative to the root) is
// ignored: .git always, otherwise by the gitignore patterns.
func (ig *Ignores) Ignored(rel string, isDir bool) bool {
	if path.Base(rel) == gitDir {
		return true
	}
	if ig == nil || ig.matcher == nil {
		return false
	}
	return ig.matcher.Match(strings.Split(rel, "/"), isDir)
}
