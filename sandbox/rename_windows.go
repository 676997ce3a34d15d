package sandbox

import (
	"errors"
	"io/fs"
)

// renamesAcrossRoots: a rename here goes through one root's handle.
const renamesAcrossRoots = false

// renameNoReplace checks that dst does not exist, then renames. Windows
// has no rename that refuses to replace a directory atomically, so a
// writer that creates dst between the check and the rename loses it.
func (p *Path) renameNoReplace(dst *Path) error {
	if _, err := dst.Root.fs.Lstat(dst.Rel); err == nil {
		return fs.ErrExist
	} else if !errors.Is(err, fs.ErrNotExist) {
		return describe(dst.Abs, err)
	}
	return describe(dst.Abs, p.Root.fs.Rename(p.Rel, dst.Rel))
}

// Exchange is not offered here (nothing here makes an exchange to undo).
func (p *Path) Exchange(dst *Path) error {
	return describe(p.Abs, errors.New("an atomic exchange of two names is not supported on Windows"))
}
