package journal

import "time"

// Op is one path a step was about to change, with the state it held
// first. Kinds:
//
//	state  Path held Before (a write, a removal, a path made)
//	meta   Path held Before, and only its mode, owner or times change
//	move   Path (holding Before) was renamed to To
//	trash  Path (holding Before) was moved out of the roots, to the file
//	       Trash names (LocalCowork's trash)
//	times  Path is the directory of a changed path: its times come back
//	       last
type Op struct {
	Kind   string `json:"k"`
	Base   string `json:"base,omitempty"` // the DIR Path lies in, when not the entry's own
	Path   string `json:"p"`              // slash path below the DIR
	ToBase string `json:"tobase,omitempty"`
	To     string `json:"to,omitempty"`
	Trash  string `json:"trash,omitempty"`
	Link   string `json:"link,omitempty"` // state: Path was made a hard link to this path of the same DIR
	Before Image  `json:"b"`
	// At is when Before was taken (nanoseconds since 1970; 0 in an older
	// journal): of two sessions' commands that changed one path at the
	// same time, the first to take it saw it as both found it.
	At int64 `json:"at,omitempty"`
}

// Entry is one step: a tool call or a shell command and what it changed.
type Entry struct {
	ID      string
	Time    time.Time
	Tool    string
	Session string // a label, never the session's id
	Command string // a shell command's text
	Undoes  []string
	Redo    bool // an undo of undos
	Ops     []Op
	After   []Final
	Notes   []string
	// NotUndoable says why the entry cannot be undone ("" when it can).
	NotUndoable string
	// Closed: the step ended (false: fsmcp stopped during it).
	Closed bool
	// Home, for an entry that lives in another DIR's journal (a move
	// between two DIRs), is that DIR.
	Home string
	// UndoneBy is the undo that reverted this entry, if any (and that
	// undo was not itself undone).
	UndoneBy string

	ended      time.Time // when the step ended (zero in a journal older than this field)
	reinstated bool      // undone once, then brought back by a redo
	live       bool      // not ended, and its process still writes it
	owner      string    // the pin of the process that wrote it
	noop       bool      // it left everything as it found it
	outside    int       // a view's changes left out (see For)
	seg        int
	store      *Store
}

// Undoable reports whether the entry can be undone now.
func (e *Entry) Undoable() bool { return e.NotUndoable == "" && e.UndoneBy == "" && len(e.Ops) > 0 }

// IsUndo reports whether the entry is an undo (or a redo).
func (e *Entry) IsUndo() bool { return len(e.Undoes) > 0 }

// bases are the DIRs the entry touches, its own first.
func (e *Entry) Bases() []string {
	out := []string{e.store.base}
	add := func(b string) {
		if b == "" {
			return
		}
		for _, o := range out {
			if o == b {
				return
			}
		}
		out = append(out, b)
	}
	for _, op := range e.Ops {
		add(op.Base)
		add(op.ToBase)
	}
	return out
}

// overlaps reports whether e's and f's steps ran at the same time (two
// sessions' commands): their changes to one path may interleave.
func (e *Entry) overlaps(f *Entry) bool {
	return e != f && !e.ended.IsZero() && !f.ended.IsZero() && e.Time.Before(f.ended) && f.Time.Before(e.ended)
}

// baseOf is the DIR of a path an op or final names ("" is the entry's own).
func (e *Entry) baseOf(b string) string {
	if b == "" {
		return e.store.base
	}
	return b
}
