package files

import (
	"context"
	"io/fs"
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
	var out []Entry
	more := false
	w := walker{ctx: ctx, visit: func(de fs.DirEntry, child *sandbox.Path, rel string, depth int) (bool, bool) {
		key := Key(rel, de.IsDir())
		enter := de.IsDir() && depth < opt.MaxDepth
		if opt.After != "" && key <= opt.After {
			// This entry was on an earlier page; enter it only if the
			// previous page ended inside it.
			return enter && strings.HasPrefix(opt.After, key), false
		}
		if len(out) == opt.Limit {
			more = true
			return false, true
		}
		out = append(out, newEntry(de, child, rel, child.Abs, true))
		return enter, false
	}}
	_, err := w.walk(root, "", 1, IgnoresFor(root))
	return out, more, err
}
