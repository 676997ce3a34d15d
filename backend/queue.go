package backend

import "time"

// Stack is the search stack a server serves from, built once.
type Stack struct {
	// Searcher is the drivers (and the index) behind the admission and
	// the page cache.
	Searcher Searcher
	// Admission is where every search waits for a slot, and a tool that
	// walks the tree itself too (toolkit.Env.Admission).
	Admission *Admission
	// Changed says files may have changed (a tool that writes ran): the
	// page cache's kept results are stale.
	Changed func()
}

// Queue is the search stack's last stage, in front of the drivers (and
// the index): every search waits for a slot in its Admission
// (maxSearches at once, 0: DefaultSearches; wait at most, 0:
// DefaultSearchWait), and a later page of a kept result comes from the
// page cache without one. main builds the stack once and the server takes
// it finished.
func Queue(s Searcher, maxSearches int, wait time.Duration) Stack {
	a := NewAdmission(maxSearches, wait)
	p := NewPages(0, 0)
	return Stack{Searcher: p.Searcher(a.Searcher(s)), Admission: a, Changed: p.Changed}
}
