package journal

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Select picks the entries an undo or a listing concerns; the zero
// Select picks every entry.
type Select struct {
	ID      string    // one change
	Session string    // a session's changes
	Since   time.Time // changes at or after this time
	Last    int       // the last N changes
}

// Pick returns the entries sel names, newest first.
func (st *Store) Pick(sel Select) ([]*Entry, error) {
	es, err := st.Entries()
	if err != nil {
		return nil, err
	}
	sortNewestFirst(es)
	var out []*Entry
	for _, e := range es {
		switch {
		case sel.ID != "" && e.ID != sel.ID:
			continue
		case sel.Session != "" && e.Session != sel.Session:
			continue
		case !sel.Since.IsZero() && e.Time.Before(sel.Since):
			continue
		}
		out = append(out, e)
		if sel.Last > 0 && len(out) == sel.Last {
			break
		}
	}
	if sel.ID != "" && len(out) == 0 {
		return nil, fmt.Errorf("no change %q in the journal of %s (fs_history lists them; old ones leave it past --journal-size or --journal-age)", sel.ID, st.root)
	}
	return out, nil
}

// Report says what an undo did.
type Report struct {
	Restored []string // "id path" lines
	Skipped  []string // one sentence each
}

func (r *Report) String() string {
	var b strings.Builder
	if len(r.Restored) == 0 && len(r.Skipped) == 0 {
		return "nothing to undo"
	}
	if len(r.Restored) > 0 {
		fmt.Fprintf(&b, "restored %d:\n", len(r.Restored))
		for _, s := range r.Restored {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, "skipped %d:\n", len(r.Skipped))
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// Undo reverts the entries (newest first, as Pick returns them) in sb,
// journaling the undo itself as kind "undo" (so undoing it redoes). An
// entry whose file changed since (its content differs from the entry's
// after-image) is skipped with a sentence naming the file, unless force.
func (s *Set) Undo(ctx context.Context, sb *sandbox.Sandbox, st *Store, es []*Entry, force bool) *Report {
	r := &Report{}
	for _, e := range es {
		if !e.Undoable() {
			why := e.NotUndoable
			if e.Aborted {
				why = "the change itself failed, so nothing landed"
			}
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s (%s %s): not undoable: %s", e.ID, e.Tool, st.abs(e.Paths), why))
			continue
		}
		line := fmt.Sprintf("%s %s (%s at %s)", e.ID, st.abs(e.Paths), or(e.Tool, e.Kind), e.Time.Local().Format(time.DateTime))
		err := s.undoOne(ctx, sb, st, e, force)
		var partial *partialError
		switch {
		case errors.As(err, &partial):
			r.Restored = append(r.Restored, line+"; but "+partial.Error())
		case err != nil:
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s (%s): %v", e.ID, e.Tool, err))
		default:
			r.Restored = append(r.Restored, line)
		}
	}
	return r
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (st *Store) abs(rels []string) string {
	var out []string
	for _, r := range rels {
		out = append(out, filepath.Join(st.root, filepath.FromSlash(r)))
	}
	return strings.Join(out, ", ")
}

func (s *Set) undoOne(ctx context.Context, sb *sandbox.Sandbox, st *Store, e *Entry, force bool) error {
	paths := make([]*sandbox.Path, len(e.Paths))
	datas := make([][]byte, len(e.Paths))
	changes := make([]Change, len(e.Paths))
	for i, rel := range e.Paths {
		abs := filepath.Join(st.root, filepath.FromSlash(rel))
		p, err := sb.Resolve(abs)
		if err != nil {
			return err
		}
		paths[i] = p
		b := e.Before[i]
		if e.Meta {
			now, _ := st.stat(p)
			if !now.Exists {
				return fmt.Errorf("%s is gone since; its mode and owner are not restored", abs)
			}
			changes[i] = Change{Path: p, Meta: true}
			continue
		}
		now, _ := st.image(p, false)
		if !force && (now.Exists != e.After[i].Exists || now.Dir != e.After[i].Dir || now.Hash != e.After[i].Hash) {
			return fmt.Errorf("%s changed since (by someone else?); not undone — pass force to undo anyway", abs)
		}
		switch {
		case !b.Exists:
			changes[i] = Change{Path: p, Gone: true}
		case b.Dir:
			changes[i] = Change{Path: p, Dir: true}
		default:
			data, err := st.blob(b.Hash)
			if err != nil {
				return fmt.Errorf("the old content of %s is no longer in the journal", abs)
			}
			datas[i] = data
			changes[i] = Change{Path: p, After: data}
		}
	}
	m, err := s.Before(ctx, "undo "+e.ID, changes...)
	if err != nil {
		return err
	}
	quiet := Journaled(ctx)
	var notes []string
	for i, p := range paths {
		b := e.Before[i]
		var err error
		switch {
		case e.Meta:
			err = p.Chmod(b.Mode.Perm())
		case !b.Exists:
			err = p.Remove()
			if now, _ := p.Lstat(); now == nil {
				err = nil
			}
		case b.Dir:
			if fi, serr := p.Lstat(); serr != nil || !fi.IsDir() {
				err = p.MkdirAll(b.Mode.Perm())
			}
			if err == nil {
				err = p.Chmod(b.Mode.Perm())
			}
		default:
			if Restore != nil {
				err = Restore(quiet, p, datas[i])
			} else {
				err = p.WriteFile(datas[i], b.Mode.Perm())
			}
			if err == nil {
				err = p.Chmod(b.Mode.Perm())
			}
			if err == nil && !b.MTime.IsZero() {
				err = p.Chtimes(b.MTime, b.MTime)
			}
		}
		if err == nil && b.Exists && b.Owner != nil {
			if now, _ := st.stat(p); now.Owner != nil && *now.Owner != *b.Owner {
				if cerr := p.Chown(b.Owner[0], b.Owner[1]); cerr != nil {
					notes = append(notes, fmt.Sprintf("the owner of %s (uid %d, gid %d) was not restored: %v", p.Abs, b.Owner[0], b.Owner[1], sandbox.Cause(cerr)))
				}
			}
		}
		if err != nil {
			m.Done(err)
			return err
		}
	}
	if len(notes) > 0 {
		return &partialError{notes}
	}
	return nil
}

// partialError says what an undo that otherwise landed could not restore.
type partialError struct{ notes []string }

func (e *partialError) Error() string { return strings.Join(e.notes, "; ") }
