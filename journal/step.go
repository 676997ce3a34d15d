package journal

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Actor is who a step changes things for.
type Actor struct {
	Tool    string // the tool, or "fsmcp undo"
	Session string // the session's id ("" on stdio); only a label of it is kept
	Client  string // the client's name, if it gave one
	Command string // a shell command's text
}

// Step is one entry being made: everything one tool call or one shell
// command changes. Its first change writes the entry's beginning; each
// change after writes what the path held first; End writes what each
// path holds when the step is over. A Step is safe for concurrent use
// (the shell's supervisor reports from several processes at once).
type Step struct {
	set    *Set
	actor  Actor
	label  string
	undoes []string
	redo   bool
	off    string // why nothing is journaled ("" when it is)
	byTool bool   // a tool's step: a change it cannot keep is refused once; its files are hashed at the end

	mu sync.Mutex
	// undoing: an undo's step; what it cannot keep of what it replaces
	// is refused unless undoForce (no call again confirms an undo).
	undoing, undoForce bool
	// madeLink: paths about to be made hard links (by key), to the
	// store path of the file they link, for their op; linking, the last
	// such path, until its capture (see Linked, keptWhole).
	madeLink  map[string]string
	linking   string
	home      *Store
	seg       int
	id        string
	log       *os.File // the home segment's log, open while the step is
	logRef    *sharedLog
	pending   []byte // records encoded, not yet in the log, oldest first
	urgent    bool   // one of them keeps what a change destroys: it is written before the change
	holding   bool   // a capture is gathering its records (capture.go)
	lazyN     int    // records pending
	lazyT     *time.Timer
	pack      *os.File
	packSize  int64
	seen      map[string]int  // paths whose first state is recorded: seenMeta or seenFull
	finals    []finalAt       // the paths read when the step ends
	trees     map[string]bool // paths made as a whole tree: their manifest is read at the end
	finSeen   map[string]bool
	open      map[string]bool   // paths a process the command left running holds open for writing (StillOpen)
	others    map[string]*Store // other DIRs' journals the step touches
	kept      int64
	lost      []string // what was not kept, one sentence each
	notes     []string
	ended     bool
	touched   bool // asked to record a change while off
	heldN     int  // objects moved into the journal so far
	heldMade  bool // the segment's held directory exists
	logBytes  int64
	heldUse   int64     // disk of the objects held, for the usage file
	heldDirF  *os.File  // the segment's held directory, once opened
	ops       []Op      // what the step wrote, contents left out
	opsN      int       // how many ops it wrote
	timed     []finalAt // the directories whose times it recorded
	full      bool      // it reached the bound of one change: it records no more
	hookCall  string    // a host's call, ended by another process (hook.go)
	hookOff   int64     // the log's size when it began: its records lie after
	opRec     record    // writeOp's record and op, reused
	opBuf     Op
	dirs      dirCache
	dirKnown  map[string]bool // directories seen to exist
	lastDir   dirKey          // the directory whose parents and times the last capture recorded
	lastWhole string          // the path the last capture kept whole (KeptWhole)
}

type stepKey struct{}

// Begin starts a step for actor in a call whose roots are roots. A step
// whose roots hold the journal directory journals nothing (a tool could
// forge what an undo trusts), and says so when it ends.
func (s *Set) Begin(a Actor, roots []string) *Step {
	st := &Step{set: s, actor: a, byTool: a.Command == ""}
	if s == nil {
		return st
	}
	if r := s.inside(roots); r != "" {
		st.off = fmt.Sprintf("not journaled: the change journal lies inside the allowed directory %s, where tools could reach it", escape.Name(r))
	}
	return st
}

// sessionLabel is the step's session as history shows it, made when
// first needed (most calls change nothing).
func (st *Step) sessionLabel() string {
	if st.label == "" {
		st.label = st.set.Label(st.actor.Session, st.actor.Client)
	}
	return st.label
}

// With returns ctx carrying st: the writers below report to it.
func With(ctx context.Context, st *Step) context.Context {
	return context.WithValue(ctx, stepKey{}, st)
}

// From returns the step ctx carries, or nil.
func From(ctx context.Context) *Step {
	if ctx == nil {
		return nil
	}
	st, _ := ctx.Value(stepKey{}).(*Step)
	return st
}

// recording returns ctx's step locked, when it records changes; nil
// when there is none or it journals nothing (then it notes that it was
// asked: its answer says why nothing was kept). The caller unlocks.
func recording(ctx context.Context) *Step {
	st := From(ctx)
	if st == nil || st.set == nil {
		return nil
	}
	st.mu.Lock()
	if !st.active() {
		st.touched = true
		st.mu.Unlock()
		return nil
	}
	return st
}

// Set returns the journal the step writes to (nil: none).
func (st *Step) Set() *Set {
	if st == nil {
		return nil
	}
	return st.set
}

// active reports whether the step journals anything.
func (st *Step) active() bool {
	return st != nil && st.set != nil && st.off == "" && !st.ended && !st.full
}

// where returns the journal and slash path of p below its DIR.
func (st *Step) where(p *sandbox.Path) (*Store, string, error) {
	base, rel := p.Root.Base()
	store, err := st.set.Store(base)
	if err != nil {
		return nil, "", err
	}
	return store, path.Join(rel, p.Rel), nil
}

// key names a path of a DIR for the step's bookkeeping.
func key(store *Store, rel string) string { return store.base + "\x00" + rel }

// begin writes the entry's beginning in store's journal the first time
// the step changes anything (st.mu held).
func (st *Step) begin(store *Store) error {
	if st.home != nil {
		if store != st.home && st.others[store.base] == nil {
			if st.others == nil {
				st.others = map[string]*Store{}
			}
			st.others[store.base] = store
		}
		return nil
	}
	st.sessionLabel()
	store.mu.Lock()
	var err error
	var ok bool
	if st.seg, ok = store.recent(); !ok {
		err = store.locked(func() error {
			st.seg, err = store.openSegment()
			return err
		})
	}
	st.id = store.nextID()
	var owner string
	if err == nil {
		// This process's pin tells other processes the segment is being
		// written; its own pruning sees the step (Set.pin).
		owner = store.claim(st.seg)
		st.logRef, err = store.acquireLog(st.seg)
	}
	if st.hookCall != "" && err == nil {
		owner = hookOwner() // another process ends it (hook.go)
		if fi, err := st.logRef.f.Stat(); err == nil {
			st.hookOff = fi.Size() // where it reads the step back from
		}
	}
	store.mu.Unlock()
	if err != nil {
		return err
	}
	st.home, st.log = store, st.logRef.f
	st.set.pin(store, map[int]bool{st.seg: true}, true)
	st.seen, st.finSeen, st.trees, st.dirKnown = map[string]int{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	r := &record{T: "b", ID: st.id, Time: time.Now().UTC(), Tool: st.actor.Tool, Session: st.label, Command: st.actor.Command, Owner: owner}
	return st.write(r)
}

// write appends r to the step's log: at once, or with the other records
// of the capture in progress, in one append when it ends (st.mu held).
func (st *Step) write(r *record) error {
	b, err := marshalRecord(st.pending, wireRecord(r))
	if err != nil {
		return err
	}
	st.pending = append(b, '\n')
	st.lazyN++
	st.urgent = st.urgent || !lazy(r)
	if st.holding {
		return nil
	}
	return st.writePending()
}

// lazy reports whether r may reach the log just after the change it
// precedes: it keeps nothing the change destroys (the entry's
// beginning, a directory's times, that nothing was at a path). A
// command that makes thousands of files then waits for none of their
// records: they go out together, at most lazyWait or lazyMax records
// later. Were fsmcp killed in between, an undo would leave such a file
// where it was made; every byte that was there before is kept first.
func lazy(r *record) bool {
	switch {
	case r.T == "b":
		return true
	case r.T != "o":
		return false
	case r.Op.Kind == "times":
		return true
	}
	return r.Op.Kind == "state" && r.Op.Before.Type == ""
}

const (
	lazyWait = 10 * time.Millisecond
	lazyMax  = 64
)

// writePending appends the pending records in one write (st.mu held).
func (st *Step) writePending() error {
	if len(st.pending) == 0 {
		return nil
	}
	n, err := st.log.Write(st.pending)
	st.logBytes += int64(n)
	st.pending, st.urgent, st.lazyN = st.pending[:0], false, 0
	if st.lazyT != nil { // nothing left to write later
		st.lazyT.Stop()
		st.lazyT = nil
		st.set.lazyMu.Lock()
		delete(st.set.lazy, st)
		st.set.lazyMu.Unlock()
	}
	return err
}

// writeSoon writes lazy records when enough have gathered, or lazyWait
// after the first (st.mu held).
func (st *Step) writeSoon() error {
	if st.lazyN >= lazyMax {
		return st.writePending()
	}
	if len(st.pending) > 0 && st.lazyT == nil {
		st.set.lazyMu.Lock()
		if st.set.lazy == nil {
			st.set.lazy = map[*Step]bool{}
		}
		st.set.lazy[st] = true
		st.set.lazyMu.Unlock()
		st.lazyT = time.AfterFunc(lazyWait, func() {
			st.mu.Lock()
			defer st.mu.Unlock()
			if !st.ended && st.writePending() != nil {
				st.lose("the journal could not be written")
			}
		})
	}
	return nil
}

// writeOp records op (its DIR's journal is store) before the change
// lands.
func (st *Step) writeOp(store *Store, op Op) error {
	if store != st.home {
		op.Base = store.base
	}
	op.At = time.Now().UnixNano()
	// The record is the step's own scratch, not a new one per op: a
	// command that makes thousands of files makes that much less garbage.
	st.opRec = record{T: "o", ID: st.id, Op: &st.opBuf}
	st.opBuf = op
	if err := st.write(&st.opRec); err != nil {
		return err
	}
	st.opsN++
	st.checkFull()
	// Kept for End's check that something changed, for a small step (a
	// tool's); a command that changes many paths is taken as changing.
	if len(st.ops) <= maxNoopOps {
		op.Before.Data = nil // in the log; the step needs only the state
		st.ops = append(st.ops, op)
	}
	return nil
}

// finalBytes is what a path's end state takes in the log, at most
// about (150 to 250 bytes).
const finalBytes = 256

// checkFull ends the step's recording when what it has written to the
// log, the end states it will write and the contents it keeps reach
// what the journal keeps for one change: a command of 200,000 calls
// wrote 21 MB of records, which pruning under a small --journal-size
// then removed whole, the entry and every word of it with it. Past the
// bound the command goes on unrecorded, and the entry (small enough to
// stay) says so and is not undoable but by force.
func (st *Step) checkFull() {
	if st.full || st.logBytes+int64(len(st.pending))+int64(len(st.finals))*finalBytes+st.kept < st.cap() {
		return
	}
	st.full = true
	st.lose(fmt.Sprintf("it made more changes than the journal keeps for one change (half of --journal-size %s): the first %d were recorded, the rest were not", human(st.set.cfg.MaxSize), st.opsN))
}

// finalAt is a path read when the step ends, with its DIR's journal and
// its path there (as where gave them when it was recorded).
type finalAt struct {
	p     *sandbox.Path
	store *Store
	rel   string
}

// final adds p to the paths read when the step ends.
func (st *Step) final(store *Store, rel string, p *sandbox.Path) {
	k := key(store, rel)
	if !st.finSeen[k] {
		st.finSeen[k] = true
		st.finals = append(st.finals, finalAt{p, store, rel})
	}
}

// forget drops what the step knows of paths at or below p (a rename
// moved them: what comes there next is recorded afresh), the marks of
// directories' recorded times with them: a directory that comes there
// is another, whose times a change in it must record (tree/deep and b/c
// exchanged, b/c's times recorded before: a FIFO made in b/c then
// changed tree/deep's, unrecorded).
func (st *Step) forget(store *Store, rel string, p *sandbox.Path) {
	st.dirs.forget(p.Root, p.Rel)
	prefix := key(store, rel)
	times := "times\x00" + prefix
	for k := range st.seen {
		if atOrBelow(k, prefix) || atOrBelow(k, times) {
			delete(st.seen, k)
		}
	}
	st.unknown(store, rel, p)
}

// unknown drops what the step knows of the directory at rel and below
// (about to be removed, or renamed): its handles and its existence.
func (st *Step) unknown(store *Store, rel string, p *sandbox.Path) {
	st.dirs.forget(p.Root, p.Rel)
	st.lastDir, st.lastWhole = dirKey{}, ""
	prefix := key(store, rel)
	for k := range st.dirKnown {
		if atOrBelow(k, prefix) {
			delete(st.dirKnown, k)
		}
	}
}

// cap is the most one step keeps: half the bound, so that no one change
// pushes most of the history out.
func (st *Step) cap() int64 { return st.set.cfg.MaxSize / 2 }

// lose notes that something of the step was not kept.
func (st *Step) lose(what string) {
	if len(st.lost) < 20 {
		st.lost = append(st.lost, what)
	} else if len(st.lost) == 20 {
		st.lost = append(st.lost, "and more")
	}
}

// Note adds a sentence the step's answer and history carry.
func (st *Step) Note(s string) {
	if st == nil {
		return
	}
	st.mu.Lock()
	if !slices.Contains(st.notes, s) {
		st.notes = append(st.notes, s)
	}
	st.mu.Unlock()
}

// StillOpen says a process the step's command left running holds p
// open for writing: its final state is marked Open, since what that
// process writes later reaches the file through no call fsmcp sees.
func StillOpen(ctx context.Context, p *sandbox.Path) {
	st := recording(ctx)
	if st == nil {
		return
	}
	defer st.mu.Unlock()
	if st.open == nil {
		st.open = map[string]bool{}
	}
	st.open[p.Abs] = true
}

// End finishes the step: what each path it changed holds now is written,
// then the journal is pruned to its bounds. It returns sentences for the
// call's answer: what was not kept, and why nothing was journaled where
// that is so.
func (st *Step) End(ctx context.Context) []string {
	if st == nil || st.set == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended {
		return nil
	}
	st.ended = true
	if st.home == nil {
		if st.off != "" && st.touched {
			return []string{st.off}
		}
		return nil
	}
	after := st.readFinals()
	noop := st.noop(after)
	if noop {
		st.carryTimes()
	}
	var recs []*record
	for len(after) > 0 {
		n := min(len(after), 500)
		recs = append(recs, &record{T: "a", ID: st.id, After: after[:n]})
		after = after[n:]
	}
	end := &record{T: "e", ID: st.id, Time: time.Now().UTC(), Notes: st.notes, Undoes: st.undoes, Redo: st.redo, Noop: noop}
	if len(st.lost) > 0 {
		end.NotUndoable = "not everything it changed was kept: " + strings.Join(st.lost, "; ")
	}
	recs = append(recs, end)
	st.holding = true // one append, after the lazy records still pending
	// Sized once (a final takes 150 to 250 bytes), not grown record by record.
	st.pending = slices.Grow(st.pending, 256*len(st.finals)+4096)
	for _, r := range recs {
		st.write(r)
	}
	st.holding = false
	st.writePending()
	// What the step wrote is in the page cache already (a killed fsmcp
	// loses none of it); it reaches the disk a moment later with what
	// the next calls write (flush.go).
	st.set.flush.add(st.log.Name(), st.pack)
	st.home.mu.Lock()
	st.home.releaseLog(st.logRef)
	st.home.mu.Unlock()
	// A file grows on disk by whole blocks: a block more for the log and
	// one for a pack keeps the estimate at or above the truth.
	grown := st.logBytes + 4096
	if st.pack != nil {
		grown += 4096
	}
	st.set.mu.Lock()
	st.set.estimate += grown
	st.set.mu.Unlock()
	st.home.mu.Lock()
	if st.seg == st.home.cur {
		st.home.extra += grown // the segment's choice counts the log too
	}
	st.home.mu.Unlock()
	// The other DIRs' journals list the entry too (a move between DIRs).
	for _, o := range st.others {
		var n int
		o.mu.Lock()
		err := o.locked(func() (err error) {
			n, err = o.openSegment()
			return err
		})
		o.mu.Unlock()
		if err == nil {
			o.append(n, true, &record{T: "s", ID: st.id, Time: time.Now().UTC(), Tool: st.actor.Tool, Session: st.label, Home: st.home.base})
		}
	}
	if st.heldUse > 0 {
		st.home.addHeld(st.seg, st.heldUse)
	}
	if st.heldDirF != nil {
		st.heldDirF.Close()
	}
	st.dirs.close()
	st.set.pin(st.home, map[int]bool{st.seg: true}, false)
	st.set.prune()
	var out []string
	for _, n := range st.notes {
		out = append(out, "[journal: "+n+"]")
	}
	if len(st.lost) > 0 {
		out = append(out, "[journal: "+end.NotUndoable+"; this change cannot be undone]")
	}
	return out
}

// Command makes the step a shell command's: its text is in history.
// Call it before the step changes anything.
func (st *Step) Command(cmd string) {
	if st == nil {
		return
	}
	st.mu.Lock()
	st.actor.Command, st.byTool = cmd, false
	st.mu.Unlock()
}

// Undid records that the step undoes the entries ids (redo: they are
// undos themselves).
func (st *Step) Undid(ids []string, redo bool) {
	if st == nil {
		return
	}
	st.mu.Lock()
	st.undoes = append(st.undoes, ids...)
	st.redo = st.redo || redo
	st.mu.Unlock()
}

// maxNoopOps bounds the operations a step keeps in memory to tell, when
// it ends, whether it changed anything at all.
const maxNoopOps = 256

// noop reports whether the step left every path as it found it (its
// changes failed, or undid themselves): such an entry is not listed.
func (st *Step) noop(after []Final) bool {
	if len(st.undoes) > 0 || len(st.lost) > 0 || len(st.ops) > maxNoopOps {
		return false
	}
	return noopOf(st.ops, after)
}

// noopOf reports whether ops (a step's, read back) left every path as
// after finds it: only states and modes kept, each unchanged.
func noopOf(ops []Op, after []Final) bool {
	final := map[string]Image{}
	for _, f := range after {
		final[f.Base+"\x00"+f.Path] = f.Image
	}
	for _, op := range ops {
		if op.Kind == "times" {
			continue
		}
		if op.Kind != "state" && op.Kind != "meta" {
			return false
		}
		now, ok := final[op.Base+"\x00"+op.Path]
		if !ok || !unchanged(op.Before, now) {
			return false
		}
	}
	return true
}

// ID is the entry's id once the step changed something ("" before).
func (st *Step) ID() string {
	if st == nil {
		return ""
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.id
}

// BeginCall starts the step of one tool call (toolkit.Journal): ctx
// carries it to the writers, end finishes it.
func (s *Set) BeginCall(ctx context.Context, tool, session, client string, roots []string) (context.Context, func() []string) {
	st := s.Begin(Actor{Tool: tool, Session: session, Client: client}, roots)
	return With(ctx, st), func() []string { return st.End(ctx) }
}
