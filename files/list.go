package files

import (
	"context"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsmcp/fsmcp/backend/ignore"
	"github.com/fsmcp/fsmcp/fault"
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
	// SkipDir, if set, is asked before a directory is entered (its own
	// entry is still listed): true prunes it unread, so a caller that
	// never reports what lies below node_modules does not walk it.
	SkipDir func(rel string) bool
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
		return fault.Errorf(fault.Invalid, "", "filter %q is not a valid glob", glob)
	}
	return ignore.CheckGlob(glob)
}

// List walks dir depth-first in path order (a directory right before its
// contents). Symlinks are listed, never followed. .git is skipped, and so
// are gitignored directories unless IncludeIgnored.
func List(ctx context.Context, dir *sandbox.Path, opt ListOptions) (*Listing, error) {
	if err := ValidFilter(opt.Filter); err != nil {
		return nil, err
	}
	if err := dir.StatDir(); err != nil {
		return nil, err
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
	var ig *Ignores
	if !opt.IncludeIgnored {
		ig = IgnoresFor(t)
	}
	w := walker{
		ctx: ctx,
		visit: func(de fs.DirEntry, child *sandbox.Path, rel string, depth int) (bool, bool) {
			if keep(opt.Filter, de.Name(), rel) {
				out.Total++
				if opt.Max <= 0 || len(out.Entries) < opt.Max {
					out.Entries = append(out.Entries, newEntry(de, child, rel, dir.Join(rel).Abs, opt.Children))
				}
			}
			return de.IsDir() && depth < opt.Depth && (opt.SkipDir == nil || !opt.SkipDir(rel)), false
		},
		ignored: func(rel string) {
			out.IgnoredTotal++
			if len(out.Ignored) < maxIgnored {
				out.Ignored = append(out.Ignored, rel)
			}
		},
		unreadable: func(rel string) {
			if len(out.Unreadable) < maxIgnored {
				out.Unreadable = append(out.Unreadable, rel)
			}
		},
	}
	_, err = w.walk(t, "", 1, ig)
	return out, err
}

// keep applies a listing's filter to an entry's name or relative path.
func keep(filter, name, rel string) bool {
	if filter == "" {
		return true
	}
	if ok, _ := doublestar.Match(filter, name); ok {
		return true
	}
	ok, _ := doublestar.Match(filter, rel)
	return ok
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
