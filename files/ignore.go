package files

import (
	"path"
	"strings"

	"github.com/fsmcp/fsmcp/backend/ignore"
	"github.com/fsmcp/fsmcp/sandbox"
)

// The listing walkers (fs_list, resources/list) skip .git and ignored
// directories by the same rules as fs_grep and fs_glob: the search
// backend's ripgrep-compatible matcher (.gitignore, .ignore, .rgignore,
// nested, with negation and ripgrep's precedence), so a listing and a
// search never disagree about what is ignored.

// Ignores holds the ignore rules in force at one directory: those of the
// ignore files from the file system's root down to it, as ripgrep reads
// them for a search path.
type Ignores struct {
	root string // the sandbox root's real path
	dir  *ignore.IgnoreDir
}

// IgnoresFor reads the ignore files down to dir.
func IgnoresFor(dir *sandbox.Path) *Ignores {
	root := dir.Root.Path
	ig := &Ignores{root: root, dir: ignore.ParentIgnores(root, root).ChildProbe(root)}
	if dir.Rel == "." {
		return ig
	}
	cur := root
	for _, part := range strings.Split(dir.Rel, "/") {
		cur += "/" + part
		ig.dir = ig.dir.ChildProbe(cur)
	}
	return ig
}

// Child returns the rules in force in dir, a child directory of the one
// ig describes.
func (ig *Ignores) Child(dir *sandbox.Path) *Ignores {
	return &Ignores{root: ig.root, dir: ig.dir.ChildProbe(ig.real(dir.Rel))}
}

// Ignored reports whether rel (slash-separated, relative to the root) is
// ignored: .git always, otherwise by the ignore files.
func (ig *Ignores) Ignored(rel string, isDir bool) bool {
	if ignore.AlwaysLeftOut(path.Base(rel)) {
		return true
	}
	if ig == nil {
		return false
	}
	return ig.dir.Match(ig.real(rel), path.Base(rel), isDir) == ignore.MatchIgnore
}

func (ig *Ignores) real(rel string) string {
	if rel == "." {
		return ig.root
	}
	return ig.root + "/" + rel
}
