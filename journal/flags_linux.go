package journal

import (
	"context"
	"path"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/sandbox"
)

// A file's inode flags (chattr: append-only, immutable, no-dump,
// no-atime, no-copy-on-write and the like) change only by an ioctl or
// file_setattr, which the shell's filter hands to Flags: their value
// before the step's first such change is kept in a "flags" op, and an
// undo sets it back.

// Flags records the inode flags of what p names (follow: a final link
// followed) before a command changes them.
func Flags(ctx context.Context, p *sandbox.Path, follow bool) error {
	st := recording(ctx)
	if st == nil {
		return nil
	}
	defer st.mu.Unlock()
	if follow {
		if t, err := p.Target(); err == nil {
			p = t
		}
	}
	store, rel, err := st.where(p)
	if err != nil {
		return st.failed(p, err)
	}
	k := "flags\x00" + key(store, rel)
	if st.seen[k] != 0 {
		return nil
	}
	v, err := st.dirs.inodeFlags(p)
	if err != nil {
		return nil // the call fails by itself (no such file, a file system without flags)
	}
	fi, err := st.dirs.lstat(p)
	if err != nil {
		return nil
	}
	if err := st.begin(store); err != nil {
		return st.failed(p, err)
	}
	im := statImage(fi)
	im.Flags = &v
	if err := st.writeOp(store, Op{Kind: "flags", Path: rel, Before: im}); err != nil {
		return st.failed(p, err)
	}
	st.seen[k] = seenMeta
	st.final(store, rel, p)
	return nil
}

// inodeFlags reads the inode flags of what p names (no link followed),
// through a descriptor opened beneath its directory's handle.
func (c *dirCache) inodeFlags(p *sandbox.Path) (uint32, error) {
	var fd int
	if p.IsRoot() {
		h, err := p.Root.Handle()
		if err != nil {
			return 0, err
		}
		fd = int(h.Fd())
	} else {
		d, err := c.parent(p)
		if err != nil {
			return 0, err
		}
		if fd, err = unix.Openat(int(d.Fd()), path.Base(p.Rel), oRead|unix.O_CLOEXEC, 0); err != nil {
			return 0, err
		}
		defer unix.Close(fd)
	}
	return unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
}

// setInodeFlags sets the inode flags of the file or directory p names
// (no link followed) to v.
func setInodeFlags(p *sandbox.Path, v uint32) error {
	f, err := p.OpenFile(oRead, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(v))
}
