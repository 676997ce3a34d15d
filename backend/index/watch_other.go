//go:build !linux

package index

import "context"

// watcher is Linux-only (inotify); elsewhere a narrowed search walks the
// tree and stats what it skips.
type watcher struct{ ov *overlay }

// overlay never holds changes here.
type overlay struct{}

func (*overlay) snapshot() (files, subtrees map[string]struct{}, contents []int, ok bool) {
	return nil, nil, nil, false
}
func (*overlay) size() (n int, lost bool) { return 0, false }
func (*overlay) changed(string, bool)     {}

// watchBudget bounds watches; there are none here.
type watchBudget struct{ max int64 }

func (*watcher) sync()  {}
func (*watcher) close() {}

// check does nothing here: there is no watcher to prune with, nor file
// watches to budget.
func (s *Searcher) check(context.Context, *rootIndex, *Index) (rebuild bool) {
	_ = s.watches
	return false
}

// sweep is never reached here: no root is checked, so none is listed.
func sweep(*Index, []int32) []int { return nil }
