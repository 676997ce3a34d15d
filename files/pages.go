package files

import (
	"context"
	"io/fs"
	"path"
	"strings"

	"github.com/fsmcp/fsmcp/sandbox"
)

// PageOptions shape one page of a listing of a whole root.
type PageOptions struct {
	MaxDepth int // levels below the root (1: the root's own entries)
	Limit    int // entries in the page
	// After is the Key of the last entry of the previous page; "" starts
	// at the beginning.
	After string
}

// Key is an entry's place in the walk order: its root-relative path, with
// a trailing "/" for a directory, compared byte by byte.
func Key(rel string, isDir bool) string {
	if isDir {
		return rel + "/"
	}
	return rel
}

// Page lists up to Limit entries under root that come after opt.After, in
// Key order (a directory right before its contents), skipping .git and
// gitignored directories and not descending below MaxDepth. It returns the
// entries and whether more may follow. A page costs the directories on the
// way to After plus those it lists, never the whole tree.
func Page(ctx context.Context, root *sandbox.Path, opt PageOptions) ([]Entry, bool, error) {
	p := pager{ctx: ctx, opt: opt}
	err := p.walk(root, "", 1, IgnoresFor(root))
	return p.out, p.more, err
}

type pager struct {
	ctx  context.Context
	opt  PageOptions
	out  []Entry
	more bool
}

func (p *pager) walk(dir *sandbox.Path, rel string, depth int, ig *Ignores) error {
	if err := p.ctx.Err(); err != nil {
		return err
	}
	ents, err := dir.ReadDir()
	if err != nil {
		if rel == "" {
			return err
		}
		return nil
	}
	SortByPath(ents)
	for _, de := range ents {
		name := de.Name()
		crel := path.Join(rel, name)
		child := dir.Join(name)
		isDir := de.IsDir()
		if name == gitDir || (isDir && ig.Ignored(child.Rel, true)) {
			continue
		}
		key := Key(crel, isDir)
		descend := isDir && depth < p.opt.MaxDepth
		if p.opt.After != "" && key <= p.opt.After {
			if !descend || !strings.HasPrefix(p.opt.After, key) {
				continue // this entry and all below it were on earlier pages
			}
		} else {
			if len(p.out) == p.opt.Limit {
				p.more = true
				return nil
			}
			p.out = append(p.out, pageEntry(de, child, crel))
		}
		if descend {
			if err := p.walk(child, crel, depth+1, ig.Child(child)); err != nil || p.more {
				return err
			}
		}
	}
	return nil
}

func pageEntry(de fs.DirEntry, p *sandbox.Path, rel string) Entry {
	e := Entry{Rel: rel, Abs: p.Abs, Type: TypeOf(de.Type())}
	if fi, err := de.Info(); err == nil {
		e.Size, e.ModTime = fi.Size(), fi.ModTime()
	}
	switch e.Type {
	case TypeDir:
		e.Size = 0
		e.HasChildren = hasChildren(p)
	case TypeSymlink:
		e.Link, _ = p.Readlink()
	}
	return e
}
