package files

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Entry is one file system entry in a listing.
type Entry struct {
	Rel     string // slash-separated, relative to the listed directory
	Abs     string // as the client would spell it
	Type    Type
	Size    int64
	ModTime time.Time
	Link    string // a symlink's target text
	// HasChildren is set for a directory with at least one entry (checked
	// only when ListOptions.Children asks for it).
	HasChildren bool
}

// Type is an entry's kind.
type Type string

const (
	TypeFile    Type = "file"
	TypeDir     Type = "directory"
	TypeSymlink Type = "symlink"
	TypeOther   Type = "other"
)

// TypeOf maps a file mode to a Type.
func TypeOf(m fs.FileMode) Type {
	switch {
	case m.IsRegular():
		return TypeFile
	case m.IsDir():
		return TypeDir
	case m&fs.ModeSymlink != 0:
		return TypeSymlink
	}
	return TypeOther
}

// ListOptions shape a listing.
type ListOptions struct {
	Depth          int    // levels below the directory (1: its entries only)
	Filter         string // doublestar glob on the name or the relative path; "" keeps all
	IncludeIgnored bool   // descend into .gitignored directories (.git stays skipped)
	Max            int    // entries kept; the walk still counts the rest (0: no cap)
	Children       bool   // fill Entry.HasChildren for directories
}

// Listing is the result of List.
type Listing struct {
	Entries []Entry
	Total   int      // matching entries, kept or not
	Ignored []string // ignored directories skipped, relative paths (the first maxIgnored)
	// IgnoredTotal counts every ignored directory skipped.
	IgnoredTotal int
	// Unreadable lists subdirectories that could not be read (permission
	// denied, vanished); they are listed but not entered.
	Unreadable []string
}

// maxIgnored bounds the skipped directories a Listing names.
const maxIgnored = 100

// ValidFilter checks a filter glob.
func ValidFilter(glob string) error {
	if glob != "" && !doublestar.ValidatePattern(glob) {
		return fmt.Errorf("filter %q is not a valid glob", glob)
	}
	return nil
}

// List walks dir depth-first in path order (a directory right before its
// contents). Symlinks are listed, never followed. .git is skipped, and so
// are gitignored directories unless IncludeIgnored.
func List(ctx context.Context, dir *sandbox.Path, opt ListOptions) (*Listing, error) {
	if err := ValidFilter(opt.Filter); err != nil {
		return nil, err
	}
	fi, err := dir.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir.Abs)
	}
	if opt.Depth < 1 {
		opt.Depth = 1
	}
	// A listed symlink to a directory inside the root is listed through
	// its target, so that I/O below goes through a real directory.
	t, err := dir.Target()
	if err != nil {
		return nil, err
	}
	out := &Listing{}
	w := lister{ctx: ctx, opt: opt, out: out, base: dir}
	var ig *Ignores
	if !opt.IncludeIgnored {
		ig = IgnoresFor(t)
	}
	err = w.walk(t, "", 1, ig)
	return out, err
}

type lister struct {
	ctx  context.Context
	opt  ListOptions
	out  *Listing
	base *sandbox.Path
}

func (w *lister) walk(dir *sandbox.Path, rel string, depth int, ig *Ignores) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	ents, err := dir.ReadDir()
	if err != nil {
		if rel == "" {
			return err
		}
		if len(w.out.Unreadable) < maxIgnored {
			w.out.Unreadable = append(w.out.Unreadable, rel)
		}
		return nil // an unreadable subdirectory is listed, not entered
	}
	SortByPath(ents)
	for _, de := range ents {
		name := de.Name()
		crel := path.Join(rel, name)
		child := dir.Join(name)
		isDir := de.IsDir()
		if name == gitDir || (isDir && ig != nil && ig.Ignored(child.Rel, true)) {
			if name != gitDir {
				w.out.IgnoredTotal++
				if len(w.out.Ignored) < maxIgnored {
					w.out.Ignored = append(w.out.Ignored, crel)
				}
			}
			continue
		}
		if w.keep(name, crel) {
			w.out.Total++
			if w.opt.Max <= 0 || len(w.out.Entries) < w.opt.Max {
				w.out.Entries = append(w.out.Entries, w.entry(de, child, crel))
			}
		}
		if isDir && depth < w.opt.Depth {
			cig := ig
			if ig != nil {
				cig = ig.Child(child)
			}
			if err := w.walk(child, crel, depth+1, cig); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *lister) keep(name, rel string) bool {
	if w.opt.Filter == "" {
		return true
	}
	if ok, _ := doublestar.Match(w.opt.Filter, name); ok {
		return true
	}
	ok, _ := doublestar.Match(w.opt.Filter, rel)
	return ok
}

func (w *lister) entry(de fs.DirEntry, p *sandbox.Path, rel string) Entry {
	e := Entry{Rel: rel, Abs: w.base.Join(rel).Abs, Type: TypeOf(de.Type())}
	if fi, err := de.Info(); err == nil {
		e.Size, e.ModTime = fi.Size(), fi.ModTime()
	}
	switch e.Type {
	case TypeSymlink:
		e.Link, _ = p.Readlink()
	case TypeDir:
		e.Size = 0
		if w.opt.Children {
			e.HasChildren = hasChildren(p)
		}
	}
	return e
}

// hasChildren reports whether a directory has at least one entry.
func hasChildren(p *sandbox.Path) bool {
	f, err := p.Open()
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) > 0
}

// SortByPath orders directory entries so that a depth-first walk emits
// paths in byte order: a directory sorts as its name plus "/", so "a.txt"
// comes before the contents of "a/".
func SortByPath(ents []fs.DirEntry) {
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(sortKey(a), sortKey(b)) })
}

func sortKey(de fs.DirEntry) string {
	if de.IsDir() {
		return de.Name() + "/"
	}
	return de.Name()
}
