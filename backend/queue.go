package backend

import "time"

// Queue is the search stack's last stage, in front of the drivers (and
// the index): every search waits for a slot in the returned Admission
// (maxSearches at once, 0: DefaultSearches; wait at most, 0:
// DefaultSearchWait), and a later page of a kept result comes from the
// page cache without one. main builds the stack once and the server takes
// it finished; the Admission is also where a tool that walks the tree
// itself waits (toolkit.Env.Admission).
func Queue(s Searcher, maxSearches int, wait time.Duration) (Searcher, *Admission) {
	a := NewAdmission(maxSearches, wait)
	return NewPages(0, 0).Searcher(a.Searcher(s)), a
}
