package files

import (
	"context"
	"io/fs"
	"path"

	"github.com/fsmcp/fsmcp/backend/ignore"
	"github.com/fsmcp/fsmcp/sandbox"
)

// walker visits a tree depth-first in path order (a directory right before
// its contents) through the sandbox, never following symlinks. .git is
// skipped, and so are ignored directories when the walk has ignore rules.
// fs_list and resource pages differ only in what they do with each entry.
type walker struct {
	ctx context.Context
	// visit decides for one entry; it returns whether to enter it (a
	// directory) and whether to stop the whole walk.
	visit func(de fs.DirEntry, child *sandbox.Path, rel string, depth int) (enter, stop bool)
	// ignored and unreadable, when set, are told of the directories the
	// walk skips (ignored) or cannot read (listed, not entered).
	ignored, unreadable func(rel string)
}

// walk visits dir's entries; ig nil means no ignore rules. An unreadable
// starting directory is an error.
func (w *walker) walk(dir *sandbox.Path, rel string, depth int, ig *Ignores) (stopped bool, err error) {
	if err := w.ctx.Err(); err != nil {
		return true, err
	}
	ents, err := dir.ReadDir()
	if err != nil {
		if rel == "" {
			return true, err
		}
		if w.unreadable != nil {
			w.unreadable(rel)
		}
		return false, nil
	}
	SortByPath(ents)
	for _, de := range ents {
		if err := w.ctx.Err(); err != nil { // a big directory is many matches
			return true, err
		}
		name := de.Name()
		crel := path.Join(rel, name)
		child := dir.Join(name)
		if ignore.AlwaysLeftOut(name) {
			continue
		}
		if de.IsDir() && ig != nil && ig.Ignored(child.Rel, true) {
			if w.ignored != nil {
				w.ignored(crel)
			}
			continue
		}
		enter, stop := w.visit(de, child, crel, depth)
		if stop {
			return true, nil
		}
		if enter {
			cig := ig
			if ig != nil {
				cig = ig.Child(child)
			}
			if stopped, err := w.walk(child, crel, depth+1, cig); stopped || err != nil {
				return true, err
			}
		}
	}
	return false, nil
}

// newEntry describes one walked entry; abs is the path as the client would
// spell it; children asks whether a directory has entries.
func newEntry(de fs.DirEntry, p *sandbox.Path, rel, abs string, children bool) Entry {
	e := Entry{Rel: rel, Abs: abs, Type: TypeOf(de.Type())}
	if fi, err := de.Info(); err == nil {
		e.Size, e.ModTime = fi.Size(), fi.ModTime()
	}
	switch e.Type {
	case TypeSymlink:
		e.Link, _ = p.Readlink()
	case TypeDir:
		e.Size = 0
		if children {
			e.HasChildren = hasChildren(p)
		}
	}
	return e
}
