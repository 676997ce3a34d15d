package journal

import (
	"context"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Swapping records the directory dst's state before a tree built beside
// it takes its place in one step (an exchange of the two names: a
// reader sees the old tree or the new, never neither; a kill leaves one
// of them). It returns done, which the caller calls with the name that
// holds the old tree after the exchange (or with dst itself, where
// there was no exchange and the old tree must leave first): done moves
// it into the journal and reports true, or reports false when the
// caller removes it (the journal copied it, being on another file
// system, or is off).
//
// Where the journal shares dst's file system the record names the place
// in the journal the old tree goes to before it is there: a kill before
// the exchange leaves that place empty, and an undo finds nothing held
// there of the tree's identity, so it leaves dst as it is.
func Swapping(ctx context.Context, dst *sandbox.Path) (done func(old *sandbox.Path) bool, err error) {
	none := func(*sandbox.Path) bool { return false }
	st := recording(ctx)
	if st == nil {
		return none, nil
	}
	defer st.mu.Unlock()
	store, rel, err := st.where(dst)
	if err != nil {
		return none, st.failed(dst, err)
	}
	fi, err := st.dirs.lstat(dst)
	if err != nil || !fi.IsDir() {
		return none, nil // the caller's exchange says what is wrong
	}
	st.unknown(store, rel, dst)
	k := key(store, rel)
	if st.seen[k] == seenFull {
		st.final(store, rel, dst)
		return none, nil // the step made it, or keeps it already
	}
	im := statImage(fi)
	use := treeUsage(dst)
	ok, err := st.room(dst, use, "replaced")
	if err != nil {
		return none, err
	}
	if err := st.begin(store); err != nil {
		return none, st.failed(dst, err)
	}
	if err := st.dirTimes(store, dst); err != nil {
		return none, st.failed(dst, err)
	}
	name := ""
	switch {
	case !ok:
		im.Lost = "it was more than the journal keeps for one change"
	case st.sameDevice(im):
		name = st.heldName()
		im.Held, im.Usage, im.Checked = name, use, true
	default:
		im.Xattrs, im.XattrsKept = st.dirs.xattrs(dst, &im)
		if err := st.copyObject(dst, &im); err != nil {
			return none, st.failed(dst, err)
		}
	}
	if err := st.writeOp(store, Op{Kind: "state", Path: rel, Before: im}); err != nil {
		return none, st.failed(dst, err)
	}
	st.seen[k] = seenFull
	st.final(store, rel, dst)
	if name == "" {
		return none, nil
	}
	return func(old *sandbox.Path) bool {
		st.mu.Lock()
		defer st.mu.Unlock()
		if renameInto(old, st.home, name) != nil {
			return false
		}
		st.kept += use
		st.held(use)
		return true
	}, nil
}

// sameDevice reports whether an object of im's device can be moved into
// the step's held directory by a rename.
func (st *Step) sameDevice(im Image) bool {
	fi, err := st.home.fs.Lstat(st.heldDir())
	if err != nil {
		return false
	}
	h := statImage(fi)
	return h.Dev != 0 && h.Dev == im.Dev
}
