package index

import "testing"

// TestDirectoryWatchesCountAgainstTheBudget: the directory watches a
// check reserves leave that many fewer file watches, so one searcher's
// watches stay within its half of max_user_watches and a second server
// on the same tree still gets its directory watches; closing the watcher
// gives both back.
func TestDirectoryWatchesCountAgainstTheBudget(t *testing.T) {
	b := &watchBudget{}
	b.once.Do(func() { b.max = 10 })
	w, err := newWatcher(b)
	if err != nil {
		t.Skip("no inotify:", err)
	}
	w.reserveDirs(8)
	took := 0
	for range 5 {
		if b.take() {
			took++
		}
	}
	if took != 2 {
		t.Fatalf("with 8 of 10 watches reserved for directories, %d file watches were taken, want 2", took)
	}
	b.used.Add(-int64(took))
	w.close()
	if b.dirs.Load() != 0 {
		t.Fatalf("closing the watcher left %d directory watches reserved", b.dirs.Load())
	}
}
