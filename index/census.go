package index

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// A directory watch sees every change made through a name in its
// directory, but not a hard link made to one of its files from outside
// the root (or from a directory the walk leaves out), nor a write through
// such a link: the kernel reports both to the inode's own watches only.
// A watch per file would see them, but a tree of a million files has
// more files than the user's inotify budget (and the user's editor and
// other tools need that budget too). So only a file that has a link the
// directory watches do not cover gets a watch of its own when the tree
// is checked, and every other file is stat'ed again in the background,
// a pass at a time (the census): a link made from outside moves the
// file's change time, so the first pass that reaches it after the link
// puts it among the changes every search reads. A search trusts the
// files without a watch of their own only while the last pass over them
// began at most Options.CensusBound before the search; otherwise it
// stats them itself, as that pass would have, and its sweep counts as
// one. So a write through a link made from outside is seen by every
// search that starts more than the bound after the link was made.

// DefaultCensusBound is Options.CensusBound's default.
const DefaultCensusBound = 30 * time.Second

// censusIdle is how long the census goes on after the last search; the
// first search after it stats the files itself (and wakes the census).
const censusIdle = 10 * time.Minute

// censusBoundText is the bound as the log says it.
func censusBoundText(d time.Duration) string {
	if d < 0 {
		return "none: every search stats those files"
	}
	return d.String()
}

// census is one checked root's background pass over its files without
// a watch of their own (pruneState.externalIDs).
type census struct {
	bound time.Duration // < 0: every search stats those files itself
	at    atomic.Int64  // start (Unix ns) of the last pass that covered them all
	used  atomic.Int64  // the last search (Unix ns)
	wake  chan struct{}
	// passes counts the passes ended, the census's own and the
	// searches' sweeps (for tests).
	passes atomic.Int64
}

func newCensus(bound time.Duration, checked time.Time) *census {
	c := &census{bound: bound, wake: make(chan struct{}, 1)}
	c.at.Store(checked.UnixNano())
	c.used.Store(time.Now().UnixNano())
	return c
}

// fresh reports whether a search starting now may trust the files
// without a watch of their own: the last pass over them began at most
// the bound ago. It also tells the census a search came.
func (c *census) fresh(now time.Time) bool {
	if c == nil {
		return false
	}
	c.used.Store(now.UnixNano())
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return c.bound >= 0 && now.UnixNano()-c.at.Load() <= int64(c.bound)
}

// passed records a pass over every file without a watch that began at
// start, its finds already in the overlay.
func (c *census) passed(start time.Time) {
	if c == nil {
		return
	}
	for {
		old := c.at.Load()
		if old >= start.UnixNano() || c.at.CompareAndSwap(old, start.UnixNano()) {
			break
		}
	}
	c.passes.Add(1)
}

// run makes passes over ps's files without a watch of their own until
// done is closed. The first starts at once; each next one in time to end
// before the bound runs out since the last began (twice the last pass's
// length before it), but no sooner than five of its lengths after it (at
// most a fifth of a core: on a tree too big for that, some searches stat
// the files themselves). While no search came for censusIdle, none runs.
// A file whose metadata moved goes into the overlay, read by every
// search from then on.
func (c *census) run(ps *pruneState, done <-chan struct{}, log *slog.Logger) {
	if c == nil || c.bound < 0 || len(ps.externalIDs) == 0 {
		return
	}
	var period time.Duration
	for n := 0; ; n++ {
		wait := time.Until(time.Unix(0, c.at.Load()).Add(period))
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-done:
				t.Stop()
				return
			case <-t.C:
			}
		}
		for time.Since(time.Unix(0, c.used.Load())) > censusIdle {
			select {
			case <-done:
				return
			case <-c.wake:
			}
		}
		select {
		case <-done:
			return
		default:
		}
		start := time.Now()
		c.pass(ps)
		took := time.Since(start)
		period = max(c.bound-2*took, 5*took)
		if n == 0 {
			log.Info("index: the census's first pass", "root", ps.ix.root, "files", len(ps.externalIDs), "took", took.Round(time.Millisecond), "every", period.Round(time.Millisecond))
		}
	}
}

// pass stats every file of ps without a watch of their own, on one
// goroutine, puts those whose metadata moved in the overlay, and then
// records the pass.
func (c *census) pass(ps *pruneState) {
	start := time.Now()
	for _, id := range sweepWith(ps.ix, ps.externalIDs, 1) {
		ps.w.ov.changed(string(ps.ix.nameBytes(id)), false)
	}
	c.passed(start)
}
