package journal

import (
	"context"
	"io/fs"

	"github.com/fsmcp/fsmcp/sandbox"
)

// A hard link made during a step gives a file a second name: a write
// through the new name changes the file under its old name too, and the
// new name was recorded as absent, so without more the undo would remove
// the new name and leave the old one changed. Linked remembers the old
// name by the file's identity; the first write, or change of mode,
// owner or times, through any name of that file in the step keeps the
// old name whole first. (A link made in an earlier step is not
// followed so: an undo restores the name a change was made through,
// never the file in place, which could lie outside the roots.)

// Linked records that a hard link to the file existing names is about to
// be made (within the step of ctx).
func Linked(ctx context.Context, existing *sandbox.Path) {
	st := recording(ctx)
	if st == nil {
		return
	}
	defer st.mu.Unlock()
	fi, err := st.dirs.lstat(existing)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	if s, ok := sysStat(fi); ok {
		if st.links == nil {
			st.links = map[[2]uint64]*sandbox.Path{}
		}
		st.links[[2]uint64{s.dev, s.ino}] = existing
	}
}

// keepLinked keeps whole, before p is written or its mode, owner or
// times change, the old name of a file given a new name by a hard link
// in this step (see Linked; how says whether p's final link is
// followed). Whole, not only its mode: while the new name stands the
// undo cannot set the shared inode's mode, it writes the old name anew.
// st.mu is not held.
func (st *Step) keepLinked(p *sandbox.Path, how capHow) error {
	st.mu.Lock()
	old := st.linkedName(p, how&capFollow != 0)
	st.mu.Unlock()
	if old == nil {
		return nil
	}
	return st.capture(old, capKeep)
}

// linkedName is the old name of the file p names (follow: a final link
// followed) when a hard link made in this step gave it another and it is
// not kept yet, nil else. st.mu is held.
func (st *Step) linkedName(p *sandbox.Path, follow bool) *sandbox.Path {
	if len(st.links) == 0 {
		return nil
	}
	fi, err := st.dirs.lstat(p)
	if err == nil && follow && fi.Mode()&fs.ModeSymlink != 0 {
		if p, err = p.Target(); err == nil {
			fi, err = st.dirs.lstat(p)
		}
	}
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	s, ok := sysStat(fi)
	if !ok {
		return nil
	}
	// Once kept whole, the old name needs nothing more in this step.
	k := [2]uint64{s.dev, s.ino}
	old := st.links[k]
	delete(st.links, k)
	if old == nil || old.Abs == p.Abs {
		return nil
	}
	// The old name may name something else by now (removed, kept as it
	// went, and made again; reached through a link made since).
	if ofi, err := st.dirs.lstat(old); err != nil {
		return nil
	} else if o, ok := sysStat(ofi); !ok || o.dev != s.dev || o.ino != s.ino {
		return nil
	}
	return old
}
