package sandbox

// Chown changes the owner and group (-1 keeps one), following symlinks
// inside the root, as os.Root.Chown does.
func (p *Path) Chown(uid, gid int) error {
	return describe(p.Abs, p.Root.fs.Chown(p.Rel, uid, gid))
}

// Lchown changes the owner and group of a symlink itself (-1 keeps one).
func (p *Path) Lchown(uid, gid int) error {
	return describe(p.Abs, p.Root.fs.Lchown(p.Rel, uid, gid))
}
