package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// maxAncestors bounds the walk up from a directory to its root (the
// kernel's own path length limit allows no deeper tree than this).
const maxAncestors = 2048

// Encloses reports whether q, as resolved on disk, is p or lies below it:
// a copy or move of directory p to q would never end. Both are resolved
// through their roots' handles (symlinks followed inside the root, ".."
// after them), so nothing is looked up by an absolute name a swapped link
// could redirect. q need not exist: its nearest existing parent is used.
func (p *Path) Encloses(q *Path) bool {
	pfi, err := p.Root.fs.Stat(p.Rel)
	if err != nil || !pfi.IsDir() {
		return false
	}
	// The nearest existing parent of q.
	d := q
	for {
		if fi, err := d.Root.fs.Stat(d.Rel); err == nil && fi.IsDir() {
			break
		}
		if d.IsRoot() {
			return false
		}
		d = d.Dir()
	}
	if ancestorIs(d.Root.fs, d.Rel, pfi) {
		return true
	}
	// q's root may itself lie below p when roots nest: walk that root's
	// real path up inside p's root.
	if d.Root == p.Root {
		return false
	}
	rel, err := filepath.Rel(p.Root.Path, d.Root.Path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	return ancestorIs(p.Root.fs, filepath.ToSlash(rel), pfi)
}

// ancestorIs reports whether rel, or a directory above it up to the root,
// is the directory target, climbing with ".." through the root's handle.
func ancestorIs(root *os.Root, rel string, target os.FileInfo) bool {
	for range maxAncestors {
		fi, err := root.Stat(rel)
		if err != nil {
			return false // climbed past the root
		}
		if os.SameFile(fi, target) {
			return true
		}
		// Not path.Join: ".." must apply after the root resolves the
		// links in rel, not lexically before.
		rel += "/.."
	}
	return false
}
