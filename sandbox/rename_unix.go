//go:build darwin || linux

package sandbox

import "path"

// renamesAcrossRoots: beneathParents opens each name's parent through its
// own root, so one rename may span two.
const renamesAcrossRoots = true

// renameNoReplace is the OS's no-replace rename (renameExcl) on both
// parents opened through the root. On file systems without it, a hard link
// and unlink, which also refuse to replace.
func (p *Path) renameNoReplace(dst *Path) error {
	err, open := p.beneathParents(dst, renameExcl)
	if open != nil {
		return open
	}
	if noRenameExcl(err) && p.Root == dst.Root {
		if err = p.Root.fs.Link(p.Rel, dst.Rel); err == nil {
			return describe(p.Abs, p.Root.fs.Remove(p.Rel))
		}
	}
	return describe(dst.Abs, err)
}

// Exchange swaps what p and dst name, atomically (renameat2
// RENAME_EXCHANGE on Linux, renameatx_np RENAME_SWAP on macOS), each
// name taken beneath its directory's handle: how an exchange a command
// made is undone.
func (p *Path) Exchange(dst *Path) error {
	if p.Root != dst.Root {
		return ErrCrossRoot
	}
	err, open := p.beneathParents(dst, renameSwap)
	if open != nil {
		return open
	}
	return describe(dst.Abs, err)
}

// beneathParents runs a two-name call on p's and dst's names, each
// beneath its parent directory opened through its root (a parent
// swapped for a link out is not followed). It returns the call's own
// error as it is, and apart from it the error opening a parent,
// described with the path it concerns.
func (p *Path) beneathParents(dst *Path, call func(olddir int, oldname string, newdir int, newname string) error) (err, open error) {
	sd, err := p.Root.fs.Open(path.Dir(p.Rel))
	if err != nil {
		return nil, describe(p.Abs, err)
	}
	defer sd.Close()
	dd, err := dst.Root.fs.Open(path.Dir(dst.Rel))
	if err != nil {
		return nil, describe(dst.Abs, err)
	}
	defer dd.Close()
	return call(int(sd.Fd()), path.Base(p.Rel), int(dd.Fd()), path.Base(dst.Rel)), nil
}
