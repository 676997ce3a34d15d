package files

import (
	"context"
	"path"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// TreeNode is one entry of DirTree: a directory has Children (perhaps
// empty), anything else (a symlink too) has none.
type TreeNode struct {
	Name     string      `json:"name"`
	Type     string      `json:"type"` // "file" or "directory"
	Children *[]TreeNode `json:"children,omitempty"`
}

// ErrTooManyEntries is DirTree's and WalkNames's answer past their entry cap.
var ErrTooManyEntries = fault.New(fault.TooLarge, "too many entries")

// DirTree is the recursive listing of dir, entries in name order, leaving
// out (and not entering) every entry for which skip(rel) is true, rel
// being the slash-separated path below dir. Symlinks are entries, never
// followed. More than maxEntries entries (maxEntries > 0) is
// ErrTooManyEntries. Errors: NotFound, Outside, NotDir, Timeout.
func DirTree(ctx context.Context, dir *sandbox.Path, skip func(rel string) bool, maxEntries int) ([]TreeNode, error) {
	n := 0
	var build func(d *sandbox.Path, rel string) ([]TreeNode, error)
	build = func(d *sandbox.Path, rel string) ([]TreeNode, error) {
		ents, err := readDirOnly(d)
		if err != nil {
			return nil, err
		}
		out := []TreeNode{}
		for _, e := range ents {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			r := path.Join(rel, e.Name())
			if skip != nil && skip(r) {
				continue
			}
			if n++; maxEntries > 0 && n > maxEntries {
				return nil, ErrTooManyEntries
			}
			node := TreeNode{Name: e.Name(), Type: "file"}
			if e.IsDir() {
				kids, err := build(d.Join(e.Name()), r)
				if err != nil {
					return nil, err
				}
				node.Type, node.Children = "directory", &kids
			}
			out = append(out, node)
		}
		return out, nil
	}
	return build(dir, "")
}

// WalkNames visits every entry below dir in name order, depth first, with
// its slash-separated path below dir; visit says whether to keep the entry
// and, for a directory, go into it. Symlinks are visited, never followed.
// More than maxEntries visits (maxEntries > 0) is ErrTooManyEntries.
func WalkNames(ctx context.Context, dir *sandbox.Path, maxEntries int, visit func(rel string, isDir bool) (descend bool)) error {
	n := 0
	var walk func(d *sandbox.Path, rel string) error
	walk = func(d *sandbox.Path, rel string) error {
		ents, err := readDirOnly(d)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := ctx.Err(); err != nil {
				return err
			}
			if n++; maxEntries > 0 && n > maxEntries {
				return ErrTooManyEntries
			}
			r := path.Join(rel, e.Name())
			if visit(r, e.IsDir()) && e.IsDir() {
				if err := walk(d.Join(e.Name()), r); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(dir, "")
}

// readDirOnly lists a directory, refusing anything else with NotDir.
func readDirOnly(d *sandbox.Path) ([]fsDirEntry, error) {
	fi, err := d.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fault.Errorf(fault.NotDir, d.Abs, "%s is not a directory", d.Abs)
	}
	return d.ReadDir()
}
