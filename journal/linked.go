package journal

import (
	"context"

	"github.com/fsmcp/fsmcp/sandbox"
)

// A hard link made during a step gives a file a second name: a write
// through the new name changes the file under its old name too, and the
// new name was recorded as absent, so without more the undo would remove
// the new name and leave the old one changed. Linked remembers the old
// name by the file's identity; the first write through any name of that
// file in the step keeps the old name's content first. (A link made in an
// earlier step is not followed so: an undo restores the name a change was
// made through, never the file in place, which could lie outside the
// roots.)

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

// keepLinked keeps, before p is written, the old name of a file given a
// new name by a hard link in this step (see Linked). st.mu is not held.
func (st *Step) keepLinked(p *sandbox.Path) error {
	st.mu.Lock()
	if len(st.links) == 0 {
		st.mu.Unlock()
		return nil
	}
	var old *sandbox.Path
	if fi, err := st.dirs.lstat(p); err == nil && fi.Mode().IsRegular() {
		if s, ok := sysStat(fi); ok {
			k := [2]uint64{s.dev, s.ino}
			if old = st.links[k]; old != nil {
				delete(st.links, k)
			}
		}
	}
	st.mu.Unlock()
	if old == nil || old.Abs == p.Abs {
		return nil
	}
	return st.capture(old, capKeep)
}
