package journal

import (
	"os"
	"sync"
	"time"
)

// flusher brings ended steps' files to disk in batches. A step's records
// are written (to the page cache) before its change lands, so a killed
// fsmcp loses nothing; the fsync that guards against a power loss comes
// a moment later, once for every file written in that moment, instead of
// once per step beside the next call's own fsync (on ext4 the two wait
// for one another's journal commit). A power loss can lose the last
// flushEvery of entries, never tear one (a torn line is skipped when
// read). Files are synced by name: no handle is held for it.
type flusher struct {
	mu      sync.Mutex
	pending map[string]bool
	timer   *time.Timer
}

const flushEvery = 100 * time.Millisecond

// add syncs the log named log a moment later, and closes file (if not
// nil) and syncs it then too.
func (fl *flusher) add(log string, file *os.File) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.pending == nil {
		fl.pending = map[string]bool{}
	}
	fl.pending[log] = true
	if file != nil {
		fl.pending[file.Name()] = true
		file.Close()
	}
	if fl.timer == nil && len(fl.pending) > 0 {
		fl.timer = time.AfterFunc(flushEvery, fl.flush)
	}
}

// flush syncs what is pending now.
func (fl *flusher) flush() {
	fl.mu.Lock()
	names := fl.pending
	if fl.timer != nil {
		fl.timer.Stop() // a Close flushes early: the timer has nothing left
	}
	fl.pending, fl.timer = nil, nil
	fl.mu.Unlock()
	for name := range names {
		// Opened for writing: Windows flushes only through such a handle.
		if f, err := os.OpenFile(name, os.O_WRONLY, 0); err == nil { // gone meanwhile (pruned): nothing to sync
			f.Sync()
			f.Close()
		}
	}
}
