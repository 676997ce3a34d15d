package files

import (
	"io/fs"

	"github.com/fsmcp/fsmcp/sandbox"
)

// fsDirEntry is a directory entry as sandbox.Path.ReadDir gives it.
type fsDirEntry = fs.DirEntry

// Sized is one entry of ListSizes.
type Sized struct {
	Name  string
	IsDir bool  // the entry itself is a directory (a symlink is not)
	Size  int64 // of the file it names, symlinks followed inside the root; 0 when that fails
}

// ListSizes lists dir's entries in name order with their sizes. An entry
// whose size cannot be had (a dangling symlink, one leading out of the
// root) gets 0, as the listing still names it. Errors: NotFound, Outside,
// NotDir.
func ListSizes(dir *sandbox.Path) ([]Sized, error) {
	ents, err := readDirOnly(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Sized, 0, len(ents))
	for _, e := range ents {
		s := Sized{Name: e.Name(), IsDir: e.IsDir()}
		if fi, err := dir.Join(e.Name()).Stat(); err == nil {
			s.Size = fi.Size()
		}
		out = append(out, s)
	}
	return out, nil
}
