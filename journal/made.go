package journal

import (
	"context"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/sandbox"
)

// A command that makes a directory and then thousands of files in it
// (tar x, npm install, a code generator, a loop of echo) changes nothing
// that was there before below that directory: whatever it holds when the
// step ends, the step made. So the step records the directory once, as
// a tree it made (its manifest read at the end, as for a directory a
// tool copies: MadeTree), and its caller need not record each path below
// it, nor wait for the journal on each: an undo takes the tree out
// whole, and only while it is what the step left. Where that no longer
// holds (something from elsewhere is renamed or linked into it, a path
// of it is renamed out or gains a link from elsewhere, or a process the
// command left running still writes below it), the caller has the step
// record every path the tree holds then as made by it (Materialize), and
// from there on records each change below it as any other.

// MadeDir records the directory p about to be made (mkdir) and reports
// whether nothing was there: then the step holds it as a tree it makes,
// and changes below it need not be recorded until Materialize. Its
// record reaches the log before the directory is made.
func MadeDir(ctx context.Context, p *sandbox.Path) bool {
	st := From(ctx)
	if st == nil || st.set == nil {
		return false
	}
	if err := st.capture(p, capKeep); err != nil {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.active() || st.lastAbsent != p.Abs {
		return false
	}
	store, rel, err := st.where(p)
	if err != nil {
		return false
	}
	if st.writePending() != nil {
		return false
	}
	st.trees[key(store, rel)] = true
	return true
}

// Materialize records what p (a directory MadeDir said the step makes)
// holds now, and each of names (the paths made below it, in the order
// they were made: one whose call is still under way is not on the disk
// yet), as made by the step (nothing was there before it), each read at
// the end as any other path: from here on p is a directory like any
// other, and the changes below it are recorded one by one.
func Materialize(ctx context.Context, p *sandbox.Path, names []*sandbox.Path) {
	st := recording(ctx)
	if st == nil {
		return
	}
	defer st.mu.Unlock()
	store, rel, err := st.where(p)
	if err != nil {
		return
	}
	delete(st.trees, key(store, rel))
	made := func(c *sandbox.Path) bool {
		cstore, crel, err := st.where(c)
		if err != nil {
			return true
		}
		k := key(cstore, crel)
		if st.seen[k] == 0 {
			if st.writeOp(cstore, Op{Kind: "state", Path: crel}) != nil {
				st.lose(escape.Name(c.Abs) + ": the journal could not be written")
				return false
			}
			st.seen[k] = seenFull
		}
		st.final(cstore, crel, c)
		return true
	}
	var walk func(d *sandbox.Path) bool
	walk = func(d *sandbox.Path) bool {
		ents, err := d.ReadDir()
		if err != nil {
			return true
		}
		for _, de := range ents {
			c := d.Join(de.Name())
			if !made(c) || de.IsDir() && !walk(c) {
				return false
			}
		}
		return true
	}
	if !walk(p) {
		return
	}
	for _, c := range names {
		if !made(c) {
			return
		}
	}
	if st.writePending() != nil {
		st.lose(escape.Name(p.Abs) + ": the journal could not be written")
	}
}
