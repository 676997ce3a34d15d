package journal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Report says what an undo did.
type Report struct {
	Restored []string // one line per entry undone
	Skipped  []string // one sentence each
	Partial  int      // entries undone but for what their lines name
}

func (r *Report) String() string {
	var b strings.Builder
	if len(r.Restored) == 0 && len(r.Skipped) == 0 {
		return "nothing to undo"
	}
	if len(r.Restored) > 0 {
		fmt.Fprintf(&b, "undone %d:\n", len(r.Restored))
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

// Undo reverts the entries (newest first, as Pick returns them) through
// sb, as one step: ctx's step when it has one (fs_undo's call), else a
// new one for actor. An entry whose paths no longer hold what it left
// (someone changed them since) is skipped with a sentence naming them,
// unless force; nothing outside sb's roots is touched. The undo is
// journaled itself: undoing it redoes.
func (s *Set) Undo(ctx context.Context, sb *sandbox.Sandbox, es []*Entry, force bool, actor Actor) *Report {
	step := From(ctx)
	if step == nil || step.set != s {
		step = s.Begin(actor, sb.Roots())
		ctx = With(ctx, step)
		defer step.End(ctx)
	}
	step.mu.Lock()
	step.undoing, step.undoForce = true, force
	step.mu.Unlock()
	// What the undo is about to restore stays, whatever else ends
	// meanwhile and prunes.
	for _, e := range es {
		s.pin(e.store, map[int]bool{e.seg: true}, true)
		defer s.pin(e.store, map[int]bool{e.seg: true}, false)
	}
	r := &Report{}
	u := &undoer{s: s, sb: sb, ctx: ctx, plain: With(ctx, nil), force: force, restored: map[string][]*Entry{}, group: entangledGroups(es), all: map[*Store][]*Entry{}, wrote: map[string]Image{}}
	u.held = u.heldByLive(es)
	report := func(e *Entry, err error) {
		line := fmt.Sprintf("%s %s (%s at %s)", e.ID, e.pathsLine(), escape.Name(or(e.Tool, "-")), e.Time.Local().Format(time.DateTime))
		var partial *partialError
		switch {
		case errors.As(err, &partial):
			r.Restored = append(r.Restored, line+"; but "+partial.Error())
			r.Partial++
			step.Undid([]string{e.ID}, e.IsUndo())
		case err != nil:
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s (%s): %v", e.ID, escape.Name(or(e.Tool, "-")), err))
			u.held.add(e)
		default:
			r.Restored = append(r.Restored, line)
			step.Undid([]string{e.ID}, e.IsUndo())
		}
	}
	done := map[*Entry]bool{}
	for i, e := range es {
		if done[e] {
			continue
		}
		if knot := u.knot(es, i); knot != nil {
			for _, k := range knot {
				report(k, u.errs[k])
				done[k] = true
			}
			continue
		}
		u.next = es[i+1:]
		err := u.check(e)
		if err == nil {
			err = u.apply(e)
		}
		report(e, err)
	}
	return r
}

// outsideOf refuses an entry that changed paths outside sb (the
// caller's directories), before anything is read or named: a client
// narrowed to one directory undoes only what lies wholly in it, and
// learns no name outside. The whole entry can be undone by a client
// given those directories, or from a terminal.
func (e *Entry) outsideOf(sb *sandbox.Sandbox) error {
	v := e.For(sb.Contains)
	if v.outside == 0 {
		return nil
	}
	return fmt.Errorf("it also changed %s outside your directories; not undone — a client given those directories, or fsmcp undo DIR in a terminal, can undo it whole", plural(v.outside, "path"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// held are the paths newer changes that stay in effect still hold: one
// in progress (what a command left running is still writing), or one
// this undo skipped. An older entry that changed one of them waits for
// that change: put back now, the file would be under a writer still at
// work (whose entry's end state the undo's check takes as its own), or
// under a change that stays. Forced, it goes ahead (between two of a
// tool's writes, under their locks).
type held map[string]string // absolute path: the entry's id

// heldByLive is held, first, by the entries in progress of the DIRs of
// es (by any process).
func (u *undoer) heldByLive(es []*Entry) held {
	h := held{}
	for _, e := range es {
		if _, read := u.all[e.store]; read {
			continue
		}
		for _, l := range u.history(e.store) {
			if l.live {
				h.add(l)
			}
		}
	}
	return h
}

// history is the store's history as the undo first read it (other Entry
// values than the undo's own): read once, whatever asks.
func (u *undoer) history(st *Store) []*Entry {
	es, read := u.all[st]
	if !read {
		es, _ = st.History()
		u.all[st] = es
	}
	return es
}

func (h held) add(e *Entry) {
	for _, p := range e.changed() {
		if h[p] == "" {
			h[p] = e.ID
		}
	}
}

// check says why e must wait, or nil.
func (h held) check(e *Entry) error {
	if len(h) == 0 {
		return nil
	}
	for _, p := range e.changed() {
		if id := h[p]; id != "" && id != e.ID {
			return fmt.Errorf("%s was changed after it by %s, which is not undone (in progress, or skipped above); not undone — undo that one first, or pass force", escape.Name(p), id)
		}
	}
	return nil
}

// changed are the absolute paths e's ops changed (its directories'
// times aside).
func (e *Entry) changed() []string {
	var out []string
	for _, op := range e.Ops {
		if op.Kind == "times" {
			continue
		}
		out = append(out, filepath.Join(e.baseOf(op.Base), filepath.FromSlash(op.Path)))
		if op.To != "" {
			base := op.ToBase
			if op.Kind == "exchange" {
				base = op.Base
			}
			out = append(out, filepath.Join(e.baseOf(base), filepath.FromSlash(op.To)))
		}
	}
	return out
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// partialError says what an undo that otherwise landed could not restore.
type partialError struct{ notes []string }

func (e *partialError) Error() string { return strings.Join(e.notes, "; ") }

// undoer undoes one entry.
type undoer struct {
	s     *Set
	sb    *sandbox.Sandbox
	e     *Entry
	ctx   context.Context // carries the undo's step
	plain context.Context // the same without a step: the writers' own journaling is the undo's
	notes []string
	// restored are the paths the undo's entries so far put back, by the
	// entries that did (see changedSince); next are the entries it
	// undoes after this one; group numbers the entries whose steps ran
	// at the same time, directly or through others (see entangled).
	restored map[string][]*Entry
	next     []*Entry
	group    map[*Entry]int
	all      map[*Store][]*Entry // see history
	// wrote is the image each path was last restored to as a file by
	// this undo (see restoreMeta).
	wrote map[string]Image
	force bool
	held  held
	errs  map[*Entry]error // what each entry of a knot came to
}

// check tells why e cannot be undone now ("" when it can): what it is,
// where it reaches, and whether its paths still hold what it left.
func (u *undoer) check(e *Entry) error {
	u.e = e
	if err := e.outsideOf(u.sb); err != nil {
		return err
	}
	if !u.force {
		if err := u.held.check(e); err != nil {
			return err
		}
	}
	switch {
	case e.UndoneBy != "":
		return fmt.Errorf("already undone by %s (undo that to redo it)", e.UndoneBy)
	case e.NotUndoable != "" && !u.force:
		return fmt.Errorf("not undoable: %s", e.NotUndoable)
	case len(e.Ops) == 0:
		return errors.New("it changed nothing")
	case e.live:
		return errors.New("it is still in progress (a command, or what it left running, is still changing files)")
	case !e.Closed && !u.force:
		return errors.New("it was cut short (fsmcp stopped during it), so what it left is not known; pass force to undo what it recorded")
	}
	// Every path must be inside the call's roots before anything changes.
	for _, op := range e.Ops {
		if _, err := u.resolve(op.Base, op.Path); err != nil {
			return err
		}
		if op.To != "" {
			if _, err := u.resolve(op.ToBase, op.To); err != nil {
				return err
			}
		}
	}
	if !u.force {
		if changed := u.changedSince(); len(changed) > 0 {
			names := make([]string, len(changed))
			for i, c := range changed {
				names[i] = escape.Name(c)
			}
			if ids := u.sameTime(changed); len(ids) > 0 {
				return fmt.Errorf("%s changed since, by %s, which ran at the same time and changed it too; not undone — undo them together (one undo that reaches both), or pass force", strings.Join(names, ", "), strings.Join(ids, ", "))
			}
			return fmt.Errorf("%s changed since (by someone else?); not undone — pass force to undo anyway", strings.Join(names, ", "))
		}
	}
	return nil
}

// apply undoes e's ops, newest first.
func (u *undoer) apply(e *Entry) error {
	u.e, u.notes = e, nil
	for i := len(e.Ops) - 1; i >= 0; i-- {
		if err := u.undoOp(e.Ops[i]); err != nil {
			return err
		}
	}
	if len(u.notes) > 0 {
		return &partialError{u.notes}
	}
	return nil
}

// knot undoes together the entries of es, from i on, whose steps ran at
// the same time as es[i]'s (two sessions' commands), when there are
// such and each can be undone: their ops, all of them, newest first by
// when each was taken. Undone one entry after another, a path both
// changed would end as the one recorded first found it, which is not
// always the one that touched it first (one server's sed made its
// temporary file, which began its entry, before the other's loop
// reached f.txt; the undo left f.txt half-way). It returns nil, having
// changed nothing, when es[i] has no such partner, when a partner
// cannot be undone (each then goes alone, and says why), or when an
// older journal did not record when its ops were taken; else the
// entries it took, whose outcomes are in u.errs.
func (u *undoer) knot(es []*Entry, i int) []*Entry {
	var knot []*Entry
	for _, f := range es[i:] {
		if u.group[f] == u.group[es[i]] {
			knot = append(knot, f)
		}
	}
	if len(knot) < 2 {
		return nil
	}
	type taken struct {
		e  *Entry
		op Op
	}
	var ops []taken
	u.next = es // each one's end states may be any partner's
	for _, e := range knot {
		if u.check(e) != nil {
			return nil
		}
		for _, op := range e.Ops {
			if op.At == 0 {
				return nil
			}
			ops = append(ops, taken{e, op})
		}
	}
	// Stable, so one entry's ops with one time keep their order.
	slices.SortStableFunc(ops, func(a, b taken) int { return cmp.Compare(a.op.At, b.op.At) })
	u.errs = map[*Entry]error{}
	notes := map[*Entry][]string{}
	for j := len(ops) - 1; j >= 0; j-- {
		t := ops[j]
		if u.errs[t.e] != nil {
			continue
		}
		u.e, u.notes = t.e, nil
		if err := u.undoOp(t.op); err != nil {
			u.errs[t.e] = err
		}
		notes[t.e] = append(notes[t.e], u.notes...)
	}
	for _, e := range knot {
		if u.errs[e] == nil && len(notes[e]) > 0 {
			u.errs[e] = &partialError{notes[e]}
		}
	}
	return knot
}

// resolve is the path of a DIR's slash path in the undo's sandbox.
func (u *undoer) resolve(base, rel string) (*sandbox.Path, error) {
	return u.sb.Resolve(filepath.Join(u.e.baseOf(base), filepath.FromSlash(rel)))
}

// changedSince lists the paths that no longer hold what the entry left.
func (u *undoer) changedSince() []string {
	metaOnly := map[string]bool{}
	for _, op := range u.e.Ops {
		if op.Kind == "meta" {
			metaOnly[u.e.baseOf(op.Base)+"\x00"+op.Path] = true
		}
	}
	var out []string
	for _, f := range u.e.After {
		p, err := u.resolve(f.Base, f.Path)
		if err != nil {
			continue
		}
		now := readFinal(p, f.Image.Manifest != "", f.Image.Hash != "")
		// A file a process still running held open (or was about to make)
		// when the entry ended: what it wrote since, in the same file, or
		// in the one a newer entry's undo just put back (a new inode) with
		// what the process had written by then.
		same := sameState(f.Image, now) || f.Image.Open && now.Type == File && (f.Image.Type == "" || sameObject(f.Image, now) || len(u.restored[p.Abs]) > 0) || u.entangled(p.Abs, now)
		if same && metaOnly[u.e.baseOf(f.Base)+"\x00"+f.Path] {
			same = f.Image.Mode == now.Mode && ownerEq(f.Image.Owner, now.Owner) && (f.Image.Type != File || f.Image.Nlink == now.Nlink)
		}
		if !same {
			out = append(out, p.Abs)
		}
	}
	return out
}

// sameTime names the entries in effect, outside this undo, whose steps
// ran at the same time as the entry's and left one of the changed paths
// (absolute): a knot the undo did not take whole (see entangled).
func (u *undoer) sameTime(changed []string) []string {
	batch := map[string]bool{}
	for e := range u.group {
		batch[e.ID] = true
	}
	var ids []string
	for _, f := range u.history(u.e.store) {
		if batch[f.ID] || f.UndoneBy != "" || !u.e.overlaps(f) {
			continue
		}
		for _, fin := range f.After {
			if slices.Contains(changed, filepath.Join(f.baseOf(fin.Base), filepath.FromSlash(fin.Path))) {
				ids = append(ids, f.ID)
				break
			}
		}
	}
	return ids
}

// entangled reports whether what abs holds now is the work of another
// entry this undo takes back too, whose step ran at the same time as
// this one's, directly or through others (two sessions' commands
// writing one file): that entry's final, not undone yet, or what its
// undo put back. Their changes interleave, so no final is where the
// next began; undone together, newest first, the path ends as the
// oldest found it.
func (u *undoer) entangled(abs string, now Image) bool {
	g := u.group[u.e]
	for _, f := range u.restored[abs] {
		if f != u.e && u.group[f] == g {
			return true
		}
	}
	for _, f := range u.next {
		if u.group[f] != g {
			continue
		}
		for _, fin := range f.After {
			if filepath.Join(f.baseOf(fin.Base), filepath.FromSlash(fin.Path)) == abs && sameState(fin.Image, now) {
				return true
			}
		}
	}
	return false
}

// entangledGroups numbers the entries so that two whose steps ran at
// the same time, directly or through others, share a number.
func entangledGroups(es []*Entry) map[*Entry]int {
	group := make(map[*Entry]int, len(es))
	for i, e := range es {
		group[e] = i
	}
	for i, e := range es {
		for _, f := range es[i+1:] {
			if g, h := group[e], group[f]; g != h && e.overlaps(f) {
				for x, k := range group {
					if k == h {
						group[x] = g
					}
				}
			}
		}
	}
	return group
}

func ownerEq(a, b *[2]int) bool { return a == nil || b == nil || *a == *b }

func (u *undoer) undoOp(op Op) error {
	p, err := u.resolve(op.Base, op.Path)
	if err != nil {
		return err
	}
	if rs := u.restored[p.Abs]; len(rs) == 0 || rs[len(rs)-1] != u.e {
		u.restored[p.Abs] = append(rs, u.e)
	}
	switch op.Kind {
	case "times":
		u.setTimes(p, op.Before)
		return nil
	case "meta":
		return u.restoreMeta(p, op.Before)
	case "move":
		to, err := u.resolve(op.ToBase, op.To)
		if err != nil {
			return err
		}
		if u.movedBackAlready(p, to) {
			return nil
		}
		return u.moveBack(to, p)
	case "flags":
		if op.Before.Flags == nil {
			return nil
		}
		if err := Flags(u.ctx, p, false); err != nil {
			return err
		}
		return setInodeFlags(p, *op.Before.Flags)
	case "exchange":
		to, err := u.resolve(op.Base, op.To)
		if err != nil {
			return err
		}
		for _, q := range []*sandbox.Path{p, to} {
			if d := u.notDirAbove(q); d != nil {
				return fmt.Errorf("%s is not a directory now, so %s and %s were not exchanged back", escape.Name(d.Abs), escape.Name(p.Abs), escape.Name(to.Abs))
			}
		}
		if err := Exchanged(u.ctx, p, to); err != nil {
			return err
		}
		return p.Exchange(to)
	case "trash":
		if err := u.restore(p, op.Before); err != nil {
			return err
		}
		u.untrash(op.Trash, op.Before)
		return nil
	}
	return u.restore(p, op.Before)
}

// restoreMeta puts back a path's mode, owner and times, on the object
// itself (refusing one with another hard link, which may lie outside).
func (u *undoer) restoreMeta(p *sandbox.Path, b Image) error {
	if !b.Exists() || u.notDirAbove(p) != nil {
		return nil // not there as recorded (see restore)
	}
	if err := Meta(u.ctx, p); err != nil {
		return err
	}
	if b.Type != File || u.sameFile(p, b) {
		return u.setMeta(p, b)
	}
	return u.setMeta(p, b.unprivileged(u, p))
}

// sameFile reports whether the file p names now is the one whose mode
// and owner b recorded: the very inode, or content this undo just put
// back from a kept image of that inode. A mode, owner or capability
// read from one file and put on another (another file took the name
// between the lstat and the change) would make a program nobody made.
func (u *undoer) sameFile(p *sandbox.Path, b Image) bool {
	if b.Ino == 0 {
		return true // no identity recorded (Windows)
	}
	if fi, err := p.Lstat(); err == nil && sameObject(b, statImage(fi)) {
		return true
	}
	w, ok := u.wrote[p.Abs]
	return ok && w.Checked && sameObject(w, b)
}

// clear takes whatever p holds now into the journal (the undo's step),
// so a redo can bring it back; a non-empty directory the entry did not
// make is left, and named.
func (u *undoer) clear(p *sandbox.Path, madeTree bool) (bool, error) {
	fi, err := p.Lstat()
	if nothingAt(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if fi.IsDir() && !madeTree {
		ents, err := p.ReadDir()
		if err != nil {
			return false, err
		}
		if len(ents) > 0 {
			u.notes = append(u.notes, escape.Name(p.Abs)+" holds files the change did not make, so it was left in place")
			return false, nil
		}
	}
	taken, err := Take(u.ctx, p, "replaced")
	if err != nil || taken {
		return taken, err
	}
	if fi.IsDir() {
		return true, p.RemoveAll()
	}
	return true, p.Remove()
}

// madeTree reports whether the entry made p as a whole tree and left a
// manifest of it (an undo then removes the tree whole).
func (u *undoer) madeTree(p *sandbox.Path) bool {
	for _, f := range u.e.After {
		if f.Image.Manifest != "" {
			if q, err := u.resolve(f.Base, f.Path); err == nil && q.Abs == p.Abs {
				return true
			}
		}
	}
	return false
}

// restore brings p back to the state b.
func (u *undoer) restore(p *sandbox.Path, b Image) error {
	if d := u.notDirAbove(p); d != nil {
		if b.Type == Absent {
			// Nothing is at p as it was recorded: a name the record
			// found missing was made a link since (echo > l/a.txt,
			// which fails, then ln -s tree l), and clearing through it
			// would remove tree/a.txt, which the entry never touched.
			return nil
		}
		// The directory recorded above p comes back after p, going
		// backwards (its record is older): what holds its name now
		// goes first, so p lands in it and not where a link leads.
		if ok, err := u.clear(d, false); !ok || err != nil {
			return err
		}
	}
	if !b.kept() && b.Type != Absent {
		u.notes = append(u.notes, escape.Name(p.Abs)+" was not brought back: "+or(b.Lost, "its content was not kept"))
		return nil
	}
	if b.Held != "" {
		err := u.restoreHeld(p, b)
		if err == nil && b.Type == File {
			u.wrote[p.Abs] = b
		}
		if err == nil || b.Type != File {
			return err
		}
		// A file not moved back (another file system since?) is copied.
	}
	switch b.Type {
	case Absent:
		_, err := u.clear(p, u.madeTree(p))
		return err
	case Dir:
		return u.restoreDir(p, b)
	case File:
		err := u.restoreFile(p, b)
		if err == nil {
			u.wrote[p.Abs] = b
		}
		return err
	case Link:
		if ok, err := u.clear(p, false); !ok || err != nil {
			return err
		}
		if err := Keep(u.ctx, p); err != nil {
			return err
		}
		u.parents(p)
		if err := p.Symlink(b.Target); err != nil {
			return err
		}
		return p.Lchtimes(b.atime(), b.mtime())
	case FIFO:
		if ok, err := u.clear(p, false); !ok || err != nil {
			return err
		}
		if err := Keep(u.ctx, p); err != nil {
			return err
		}
		u.parents(p)
		if err := mkfifo(p, b.perm()); err != nil {
			return err
		}
		return u.setMeta(p, b)
	case Other:
		if ok, err := u.clear(p, false); !ok || err != nil {
			return err
		}
		if err := Keep(u.ctx, p); err != nil {
			return err
		}
		u.parents(p)
		if err := mknode(p, b); err != nil {
			u.notes = append(u.notes, escape.Name(p.Abs)+" was not brought back: "+sandbox.Cause(err).Error())
			return nil
		}
		return u.setMeta(p, b)
	}
	return nil
}

// restoreHeld moves the object the journal holds back to p, whatever
// p holds now going into the undo's own step (a redo brings it back).
func (u *undoer) restoreHeld(p *sandbox.Path, b Image) error {
	var aside *sandbox.Path // where the object is, when not in the journal
	if fi, err := u.e.store.fs.Lstat(b.Held); err != nil || b.Ino != 0 && !sameObject(b, statImage(fi)) {
		// Not what was set aside: a tree swapped into place records its
		// place in the journal before the exchange, and a kill before
		// the exchange left that place empty (and the old tree where
		// it was); a kill right after it left the old tree under the
		// hidden name the new one was built at.
		if aside = swappedOut(p, b); aside == nil {
			u.notes = append(u.notes, escape.Name(p.Abs)+" was left as it is: the journal does not hold what it held (fsmcp stopped before setting it aside)")
			return nil
		}
	}
	// A tree set aside was replaced by one the entry made whole (a copy
	// or move over it, swapped in): that one goes, as the entry left it
	// (check compared it with its manifest).
	if ok, err := u.clear(p, b.Type == Dir && u.madeTree(p)); !ok || err != nil {
		return err
	}
	var err error
	if b.Type == Dir {
		err = MadeTree(u.ctx, p)
	} else {
		err = Keep(u.ctx, p)
	}
	if err != nil {
		return err
	}
	from := "the journal"
	if aside != nil {
		from, err = escape.Name(aside.Abs), aside.RenameNoReplace(p)
	} else {
		p.Dir().MkdirAll(0o755) // its parents, recorded as made
		err = renameOut(u.e.store, b.Held, p)
	}
	if err != nil {
		return fmt.Errorf("%s could not be moved back from %s: %v", escape.Name(p.Abs), from, sandbox.Cause(err))
	}
	return nil
}

// swappedOut finds the directory b recorded (the very one: device and
// inode) under a hidden build name beside p, where an exchange put it
// when fsmcp was killed before moving it into the journal; nil if none.
func swappedOut(p *sandbox.Path, b Image) *sandbox.Path {
	if b.Type != Dir || b.Ino == 0 || p.IsRoot() {
		return nil
	}
	temps, _ := p.TempSiblings()
	for _, q := range temps {
		if fi, err := q.Lstat(); err == nil && fi.IsDir() && sameObject(b, statImage(fi)) {
			return q
		}
	}
	return nil
}

func (u *undoer) restoreFile(p *sandbox.Path, b Image) error {
	store := u.e.store
	if fi, err := p.Lstat(); err == nil && fi.IsDir() {
		if ok, err := u.clear(p, false); !ok || err != nil {
			return err
		}
	}
	r, err := store.openContent(&b)
	if err != nil {
		return fmt.Errorf("%s: %v", escape.Name(p.Abs), err)
	}
	defer r.Close()
	return u.owner(u.s.ops.RestoreFile(u.ctx, p, r, b.Size, u.fileAttrs(p, b)))
}

// fileAttrs is what an undo puts on a file it writes anew from b's kept
// content. Content not checked to come from the inode b's mode, owner
// and attributes were read from (kept by an older fsmcp, which read it
// by name after the lstat: another file may have taken the name in
// between) gets no set-uid or set-gid bit, no owner but the undo's and
// no file capability: those on another file's content make a program
// nobody made.
func (u *undoer) fileAttrs(p *sandbox.Path, b Image) Attrs {
	if b.Checked {
		return b.attrs()
	}
	im := b.unprivileged(u, p)
	return im.attrs()
}

// unprivileged is im without a set-uid or set-gid bit, an owner other
// than the undo's or a file capability; what it drops is noted in u.
func (im Image) unprivileged(u *undoer, p *sandbox.Path) Image {
	var dropped []string
	if im.Mode&0o6000 != 0 {
		im.Mode &^= 0o6000
		dropped = append(dropped, "set-uid and set-gid bits")
	}
	if im.Owner != nil && (im.Owner[0] != os.Geteuid() || im.Owner[1] != os.Getegid()) {
		dropped = append(dropped, "owner")
	}
	im.Owner = nil
	if _, ok := im.Xattrs[capabilityXattr]; ok {
		x := maps.Clone(im.Xattrs)
		delete(x, capabilityXattr)
		im.Xattrs = x
		dropped = append(dropped, "file capabilities")
	}
	if len(dropped) > 0 {
		u.notes = append(u.notes, escape.Name(p.Abs)+" came back without its "+strings.Join(dropped, ", ")+
			": they were read from another file than the one there now, or than its kept content")
	}
	return im
}

// capabilityXattr holds a file's capabilities (setcap).
const capabilityXattr = "security.capability"

// notDirAbove is the outermost name above p (below its root) that holds
// something other than a directory now, a link or a file; nil when there
// is none. A recorded path never goes through a link (the journal
// records the names the kernel reaches), so one found there since leads
// somewhere the record does not mean: the operations on a Path follow
// links inside the root, so the undo looks first.
func (u *undoer) notDirAbove(p *sandbox.Path) *sandbox.Path {
	var ups []*sandbox.Path
	for d := p.Dir(); !d.IsRoot(); d = d.Dir() {
		ups = append(ups, d)
	}
	for i := len(ups) - 1; i >= 0; i-- {
		fi, err := ups[i].Lstat()
		if err != nil {
			return nil // missing: what is below is missing too
		}
		if !fi.IsDir() {
			return ups[i]
		}
	}
	return nil
}

// parents makes p's missing directories (Keep just recorded them as
// made, in the undo's own step) before p is made again, as restoreFile
// and restoreHeld do. Going backwards a directory's entries come back
// before it when it was removed with them, but a directory the entry
// recorded earlier, for another change (mkdir tree, which fails, then
// echo x >> tree/a.txt, then rm -rf tree), has its record before theirs:
// it comes back after them, and puts its own mode and times back on the
// directory made here.
func (u *undoer) parents(p *sandbox.Path) {
	if !p.IsRoot() {
		p.Dir().MkdirAll(0o755)
	}
}

// owner turns an owner not given back into a note: the rest landed.
func (u *undoer) owner(err error) error {
	var oe *OwnerError
	if errors.As(err, &oe) {
		u.notes = append(u.notes, oe.Error())
		return nil
	}
	return err
}

func (u *undoer) restoreDir(p *sandbox.Path, b Image) error {
	fi, err := p.Lstat()
	if err == nil && !fi.IsDir() {
		if ok, err := u.clear(p, false); !ok || err != nil {
			return err
		}
		err = fs.ErrNotExist
	}
	switch {
	case b.Tree != nil:
		if err == nil {
			if ok, err := u.clear(p, false); !ok || err != nil {
				return err
			}
		}
		if err := MadeTree(u.ctx, p); err != nil {
			return err
		}
		return u.unpackTree(p, b)
	}
	if err != nil {
		if err := Keep(u.ctx, p); err != nil {
			return err
		}
		u.parents(p)
		if err := p.Mkdir(0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	} else if err := Meta(u.ctx, p); err != nil {
		return err
	}
	return u.setMeta(p, b)
}

// setMeta puts b's owner, mode and times back on p. Going backwards, a
// directory's entries changed after it was recorded come back before
// this, so its times stay; an owner that cannot be given back is named.
func (u *undoer) setMeta(p *sandbox.Path, b Image) error {
	return u.owner(u.s.ops.SetMeta(u.plain, p, b.attrs()))
}

// setTimes puts a directory's times back (it is the directory of paths
// the entry changed; they are all back by now, going backwards).
func (u *undoer) setTimes(p *sandbox.Path, b Image) {
	if u.notDirAbove(p) != nil {
		return // not there as recorded (see restore)
	}
	if fi, err := p.Lstat(); err == nil && fi.IsDir() {
		p.Chtimes(b.atime(), b.mtime())
	}
}

// movedBackAlready reports whether the rename from p to to moved
// nothing to undo: p holds something. Going backwards, the tree is as the
// rename left it, and a rename that moved p left nothing there (what a
// later change made at p was recorded and is gone again by now). So a
// rename that failed (its directory missing, a file onto a directory, a
// directory onto one not empty), one of two links of the same file, or one
// recorded twice (one attempt failed) is not undone; by the object's
// inode alone it was not found when the undo had put back p's content
// as another inode (mv f.txt nodir/x; echo w >> f.txt: "nodir/x is gone
// since").
//
// A rename that changed only a name's case finds p there on a file
// system that ignores case: that one is undone.
func (u *undoer) movedBackAlready(p, to *sandbox.Path) bool {
	if p.Abs != to.Abs && strings.EqualFold(p.Abs, to.Abs) {
		return false
	}
	if u.notDirAbove(p) != nil {
		return false // not there as recorded (see restore)
	}
	_, err := p.Lstat()
	return err == nil
}

// moveBack renames what from holds back to to, where a change moved it.
func (u *undoer) moveBack(from, to *sandbox.Path) error {
	if _, err := from.Lstat(); err != nil || u.notDirAbove(from) != nil {
		// A link or file at a name above from: what it leads to is not
		// what the entry moved there (see notDirAbove).
		return fmt.Errorf("%s is gone since, so it cannot be moved back to %s", escape.Name(from.Abs), escape.Name(to.Abs))
	}
	if d := u.notDirAbove(to); d != nil {
		// The directory recorded above to comes back after, going
		// backwards (see restore): what holds its name now goes first,
		// so the file lands in it and not where a link leads.
		if ok, err := u.clear(d, false); !ok || err != nil {
			if err == nil {
				err = fmt.Errorf("%s holds something else now, so %s was not moved back into it", escape.Name(d.Abs), escape.Name(from.Abs))
			}
			return err
		}
	}
	if _, err := to.Lstat(); err == nil {
		return fmt.Errorf("%s exists again, so %s was not moved back onto it", escape.Name(to.Abs), escape.Name(from.Abs))
	}
	if err := Moved(u.ctx, from, to); err != nil {
		return err
	}
	// Its directory may be gone, removed later in the entry (exec
	// 3>>d/x; mv d/x sock; rm -rf d): made again (Moved recorded it as
	// made), its own record, undone after, decides what it holds.
	u.parents(to)
	// A rename back, between two roots too, keeps the object as the
	// entry found it (its inode, links, extended attributes); a copy
	// only where one rename cannot do it.
	err := from.RenameNoReplace(to)
	if err == nil || !errors.Is(err, errCrossDevice) && !errors.Is(err, sandbox.ErrCrossRoot) {
		return err
	}
	return u.s.ops.Move(u.plain, from, to)
}

// untrash removes the trash's copy of a file brought back, if it is
// still the file that went there.
func (u *undoer) untrash(trash string, b Image) {
	if trash == "" {
		return
	}
	dir, name := filepath.Split(trash)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return
	}
	defer root.Close()
	fi, err := root.Lstat(name)
	if err != nil {
		return
	}
	now := statImage(fi)
	if sameObject(b, now) || b.Size == now.Size && b.MTime == now.MTime {
		root.Remove(name)
	}
}

// unpackTree makes the tree b lists at p (which exists, empty).
func (u *undoer) unpackTree(p *sandbox.Path, b Image) error {
	list, err := u.e.store.readTree(b.Tree)
	if err != nil {
		return fmt.Errorf("%s: %v", escape.Name(p.Abs), err)
	}
	if err := p.Mkdir(0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	type dir struct {
		p  *sandbox.Path
		im Image
	}
	dirs := []dir{{p, b}}
	for _, te := range list {
		c := p.Join(filepath.FromSlash(te.Path))
		im := te.Image
		switch im.Type {
		case Dir:
			if err := c.Mkdir(0o700); err != nil {
				return err
			}
			dirs = append(dirs, dir{c, im})
		case File:
			r, err := u.e.store.openContent(&im)
			if err != nil {
				u.notes = append(u.notes, escape.Name(c.Abs)+" was not brought back: "+err.Error())
				continue
			}
			err = u.owner(u.s.ops.RestoreFile(u.ctx, c, r, im.Size, u.fileAttrs(c, im)))
			r.Close()
			if err != nil {
				return err
			}
		case Link:
			if err := c.Symlink(im.Target); err != nil {
				return err
			}
			u.setMeta(c, im) // its own times and owner (an owner only root gives back)
		case FIFO:
			if err := mkfifo(c, im.perm()); err != nil {
				return err
			}
			u.setMeta(c, im)
		case Other:
			if im.Node == "" {
				u.notes = append(u.notes, escape.Name(c.Abs)+" was not brought back: "+or(im.Lost, "it was not kept"))
				continue
			}
			if err := mknode(c, im); err != nil {
				u.notes = append(u.notes, escape.Name(c.Abs)+" was not brought back: "+sandbox.Cause(err).Error())
				continue
			}
			u.setMeta(c, im)
		default:
			u.notes = append(u.notes, escape.Name(c.Abs)+" was not brought back: "+or(im.Lost, "it was not kept"))
		}
	}
	// The directories' own state last, innermost first: their entries
	// are all there.
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := u.setMeta(dirs[i].p, dirs[i].im); err != nil {
			return err
		}
	}
	return nil
}
