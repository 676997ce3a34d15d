//go:build darwin || linux

package sandbox

import "path"

// renameNoReplace is the OS's no-replace rename (renameExcl) on both
// parents opened through the root. On file systems without it, a hard link
// and unlink, which also refuse to replace.
func (p *Path) renameNoReplace(dst *Path) error {
	sd, err := p.Root.fs.Open(path.Dir(p.Rel))
	if err != nil {
		return describe(p.Abs, err)
	}
	defer sd.Close()
	dd, err := dst.Root.fs.Open(path.Dir(dst.Rel))
	if err != nil {
		return describe(dst.Abs, err)
	}
	defer dd.Close()
	err = renameExcl(int(sd.Fd()), path.Base(p.Rel), int(dd.Fd()), path.Base(dst.Rel))
	if noRenameExcl(err) {
		if err = p.Root.fs.Link(p.Rel, dst.Rel); err == nil {
			return describe(p.Abs, p.Root.fs.Remove(p.Rel))
		}
	}
	return describe(dst.Abs, err)
}
