package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/filelock"
	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/sandbox"
)

// History returns the DIR's entries, oldest first: its own, and those of
// moves between DIRs that live in the other DIR's journal; each knows
// the undo that reverted it, if one did.
func (st *Store) History() ([]*Entry, error) {
	es, err := st.Entries()
	if err != nil {
		return nil, err
	}
	st.recoverCut(es)
	homes := map[string][]*Entry{}
	for i, e := range es {
		if e.Home == "" || e.Home == st.base {
			continue
		}
		if _, ok := homes[e.Home]; !ok {
			homes[e.Home] = nil
			if hs, err := st.set.Store(e.Home); err == nil {
				homes[e.Home], _ = hs.Entries()
			}
		}
		for _, h := range homes[e.Home] {
			if h.ID == e.ID {
				es[i] = h
			}
		}
	}
	out := es[:0]
	old := time.Now().Add(-st.set.cfg.MaxAge)
	for _, e := range es {
		// A stub whose home is gone, an entry that changed nothing, and
		// one older than --journal-age (its segment goes within a span,
		// with the others it holds) are not history.
		if (e.Home == "" || e.Home == st.base) && !e.noop && !e.agedBefore(old) {
			out = append(out, e)
		}
	}
	byID := map[string]*Entry{}
	for _, e := range out {
		byID[e.ID] = e
	}
	// In time order: an undo takes what it undid out of effect; undoing
	// an undo (a redo) brings that back, and so on down the chain.
	var set func(t *Entry, by string, on bool)
	set = func(t *Entry, by string, on bool) {
		if on {
			t.UndoneBy = ""
			t.reinstated = true
		} else {
			t.UndoneBy = by
		}
		for _, id := range t.Undoes {
			if x := byID[id]; x != nil {
				set(x, by, !on)
			}
		}
	}
	for _, e := range out {
		if !e.Closed {
			continue
		}
		for _, id := range e.Undoes {
			if t := byID[id]; t != nil {
				set(t, e.ID, false)
			}
		}
	}
	return out, nil
}

// Select picks the entries a listing or an undo concerns.
type Select struct {
	ID      string    // one entry
	Session string    // a session's label
	Since   time.Time // at or after this time
	Last    int       // the newest N
	Within  string    // touching this slash path below the DIR ("" or ".": all)
}

// Purpose says what the entries are picked for.
type Purpose int

const (
	ForListing Purpose = iota // every entry
	ForUndo                   // changes not undone yet, undos left out
	ForRedo                   // undos not undone yet (redos left out)
)

// Pick returns the entries sel names, newest first.
func (st *Store) Pick(sel Select, why Purpose) ([]*Entry, error) {
	es, err := st.History()
	if err != nil {
		return nil, err
	}
	var out []*Entry
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		switch {
		case sel.ID != "" && e.ID != sel.ID:
			continue
		case sel.Session != "" && e.Session != sel.Session:
			continue
		case !sel.Since.IsZero() && e.Time.Before(sel.Since):
			continue
		case !e.touches(sel.Within):
			continue
		}
		if sel.ID == "" {
			switch why {
			case ForUndo:
				// A change in effect; one a redo brought back is undone
				// by undoing that redo, which holds what it replaced.
				if e.UndoneBy != "" || len(e.Ops) == 0 || e.IsUndo() && !e.Redo || !e.IsUndo() && e.reinstated {
					continue
				}
			case ForRedo: // an undo the user made, not a redo
				if !e.IsUndo() || e.Redo || e.UndoneBy != "" {
					continue
				}
			}
		}
		out = append(out, e)
		if sel.Last > 0 && len(out) == sel.Last {
			break
		}
	}
	if sel.ID != "" && len(out) == 0 {
		return nil, fmt.Errorf("no change %q in the journal of %s (fs_history lists them; old ones leave it past --journal-size or --journal-age)", escape.Name(sel.ID), escape.Name(st.base))
	}
	return out, nil
}

// touches reports whether the entry changed a path at or below within
// (a slash path below the entry's own DIR).
func (e *Entry) touches(within string) bool {
	if within == "" || within == "." {
		return true
	}
	in := func(base, p string) bool {
		return e.baseOf(base) == e.store.base && (p == within || strings.HasPrefix(p, within+"/"))
	}
	for _, op := range e.Ops {
		if op.Kind != "times" && in(op.Base, op.Path) || op.To != "" && in(op.ToBase, op.To) {
			return true
		}
	}
	return false
}

// recoverCut ends the steps a process that is gone left open (fsmcp was
// killed during them): what their paths hold now is taken as what they
// left, so they can be undone like any other, and history says so.
func (st *Store) recoverCut(es []*Entry) {
	var sb *sandbox.Sandbox
	for _, e := range es {
		if e.Closed || e.Home != "" || len(e.Ops) == 0 {
			continue
		}
		if e.live = st.live(e.owner); e.live {
			continue
		}
		if sb == nil {
			bases := e.Bases()
			var errs []error
			if sb, errs = sandbox.New(bases); len(errs) > 0 && len(sb.Roots()) == 0 {
				return
			}
			defer sb.Close()
		}
		seen := map[string]bool{}
		var after []Final
		add := func(base, rel string, swapped *Image) {
			k := e.baseOf(base) + "\x00" + rel
			if seen[k] {
				return
			}
			seen[k] = true
			p, err := sb.Resolve(filepath.Join(e.baseOf(base), filepath.FromSlash(rel)))
			if err != nil {
				return
			}
			after = append(after, Final{Base: base, Path: rel, Image: readFinal(p, swappedIn(p, swapped), true)})
		}
		for _, op := range e.Ops {
			if op.Kind == "times" {
				continue
			}
			var swapped *Image
			if op.Kind == "state" && op.Before.Type == Dir && op.Before.Held != "" {
				swapped = &op.Before
			}
			add(op.Base, op.Path, swapped)
			if op.To != "" {
				add(op.ToBase, op.To, nil)
			}
		}
		note := "cut short: fsmcp stopped during it; what it left is taken as found at " + time.Now().Local().Format(time.DateTime)
		st.append(e.seg, true, &record{T: "a", ID: e.ID, After: after}, &record{T: "e", ID: e.ID, Notes: []string{note}})
		e.After, e.Closed, e.Notes = after, true, append(e.Notes, note)
	}
}

// swappedIn reports whether p holds a directory other than the one
// set aside (old, nil for none): the tree a step cut short swapped in
// over it, made whole by that step, so its manifest is taken with it
// (an undo then takes it away as the step left it).
func swappedIn(p *sandbox.Path, old *Image) bool {
	if old == nil {
		return false
	}
	fi, err := p.Lstat()
	return err == nil && fi.IsDir() && !sameObject(*old, statImage(fi))
}

// live reports whether the process whose pin is owner still runs (its
// pin is locked): its step in progress is not one cut short.
func (st *Store) live(owner string) bool {
	if strings.HasPrefix(owner, "hook:") {
		return hookLive(owner)
	}
	if owner == "" || strings.ContainsAny(owner, "/\\") {
		return false
	}
	f, err := st.fs.OpenFile(pinDir+"/"+owner, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	free, _ := filelock.TryLock(f)
	return !free
}

// agedBefore reports whether e ended (or, cut short, began) before t.
func (e *Entry) agedBefore(t time.Time) bool {
	if e.live {
		return false
	}
	end := e.ended
	if end.IsZero() {
		end = e.Time
	}
	return !end.IsZero() && end.Before(t)
}
