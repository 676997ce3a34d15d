package journal

import (
	"path/filepath"
	"strings"

	"github.com/fsmcp/fsmcp/internal/escape"
)

// Inside tells whether an absolute path lies in a caller's directories
// (a sandbox's Contains).
type Inside func(abs string) bool

// For is the entry as a caller whose directories inside names sees it:
// only its ops and end states on paths inside them. A client narrowed to
// one directory must not read, through another client's entry, what a
// file outside held (its diff) or even its name (the listing, the
// command's text, the notes). The entry itself is returned when all of
// it is inside.
func (e *Entry) For(inside Inside) *Entry {
	if inside == nil {
		return e
	}
	abs := func(base, rel string) string { return filepath.Join(e.baseOf(base), filepath.FromSlash(rel)) }
	out := map[string]bool{}
	var ops []Op
	for _, op := range e.Ops {
		a := abs(op.Base, op.Path)
		in := inside(a)
		if op.To != "" {
			to := abs(op.ToBase, op.To)
			if !inside(to) {
				in = false
				out[to] = true
			}
		}
		if !in {
			out[a] = true
			continue
		}
		ops = append(ops, op)
	}
	if len(out) == 0 {
		return e
	}
	v := *e
	v.Ops = ops
	v.After = nil
	for _, f := range e.After {
		if a := abs(f.Base, f.Path); inside(a) && !out[a] {
			v.After = append(v.After, f)
		}
	}
	v.Notes = nil
	for _, n := range e.Notes {
		if !mentions(n, out) {
			v.Notes = append(v.Notes, n)
		}
	}
	if mentions(v.NotUndoable, out) {
		v.NotUndoable = "for a change outside your directories"
	}
	// A directory's times outside count no change of their own.
	for a := range out {
		if !e.changes(a) {
			delete(out, a)
		}
	}
	if v.outside = len(out); v.outside > 0 {
		v.Command = "" // it may name them
	}
	return &v
}

// changes reports whether an op of e other than a directory's times
// names abs.
func (e *Entry) changes(abs string) bool {
	for _, op := range e.Ops {
		if op.Kind == "times" {
			continue
		}
		if filepath.Join(e.baseOf(op.Base), filepath.FromSlash(op.Path)) == abs ||
			op.To != "" && filepath.Join(e.baseOf(op.ToBase), filepath.FromSlash(op.To)) == abs {
			return true
		}
	}
	return false
}

// mentions reports whether s names one of the paths (as a note or a
// reason spells a name: escaped).
func mentions(s string, paths map[string]bool) bool {
	for p := range paths {
		if strings.Contains(s, escape.Name(p)) || strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// outsideLine says how many of the entry's changes a cut view leaves out.
func (e *Entry) outsideLine() string {
	if e.outside == 0 {
		return ""
	}
	return "and " + plural(e.outside, "change") + " outside your directories"
}
