package files

import (
	"context"
	"io/fs"

	"github.com/fsmcp/fsmcp/sandbox"
)

// FindOptions shape a Find.
type FindOptions struct {
	// Depth is how many levels below the directory are walked (1: its
	// entries only; 0 or less: no bound).
	Depth int
	// Max stops the walk once this many entries are kept (0: no cap).
	Max int
	// Match keeps an entry by its name and type (nil keeps all). Every
	// directory within Depth is entered, kept or not.
	Match func(name string, t Type) bool
}

// Find walks dir as List does (depth-first in path order, symlinks listed
// and never followed, .git skipped) but with no ignore rules and a
// caller's predicate, and stops as soon as Max entries are kept:
// LocalCowork's list_dir filter and search_files. truncated reports that
// the walk stopped at Max with entries left unseen.
func Find(ctx context.Context, dir *sandbox.Path, opt FindOptions) (entries []Entry, truncated bool, err error) {
	if err := dir.StatDir(); err != nil {
		return nil, false, err
	}
	t, err := dir.Target()
	if err != nil {
		return nil, false, err
	}
	w := walker{
		ctx: ctx,
		visit: func(de fs.DirEntry, child *sandbox.Path, rel string, depth int) (bool, bool) {
			if opt.Max > 0 && len(entries) >= opt.Max {
				truncated = true
				return false, true
			}
			if opt.Match == nil || opt.Match(de.Name(), TypeOf(de.Type())) {
				entries = append(entries, newEntry(de, child, rel, dir.Join(rel).Abs, false))
			}
			return de.IsDir() && (opt.Depth <= 0 || depth < opt.Depth), false
		},
	}
	_, err = w.walk(t, "", 1, nil)
	return entries, truncated, err
}
