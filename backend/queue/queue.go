// Package queue is the search stack's last stage, in front of the
// drivers and the index: the admission that bounds the searches running
// at once (a session's burst waits its turn instead of starting a
// hundred rg processes), the call clock that stops while a call waits,
// and the page cache that serves a later page from a kept result. It is
// a room of its own because it is about how many searches run and when,
// never about what a search finds.
package queue

import (
	"time"

	"github.com/fsmcp/fsmcp/backend"
)

// Stack is the search stack a server serves from, built once.
type Stack struct {
	// Searcher is the drivers (and the index) behind the admission and
	// the page cache.
	Searcher backend.Searcher
	// Admission is where every search waits for a slot, and a tool that
	// walks the tree itself too (toolkit.Env.Admission).
	Admission *Admission
	// Changed says files may have changed (a tool that writes ran): the
	// page cache's kept results are stale.
	Changed func()
}

// New is the search stack's last stage, in front of the drivers (and
// the index): every search waits for a slot in its Admission
// (maxSearches at once, 0: DefaultSearches; wait at most, 0:
// DefaultSearchWait), and a later page of a kept result comes from the
// page cache without one. stack.New builds the whole stack (this stage
// last) and the server takes it finished.
func New(s backend.Searcher, maxSearches int, wait time.Duration) Stack {
	a := NewAdmission(maxSearches, wait)
	p := NewPages(0, 0)
	return Stack{Searcher: p.Searcher(a.Searcher(s)), Admission: a, Changed: p.Changed}
}
