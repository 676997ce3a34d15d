package index

import (
	"sort"
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
// a chunk of files at a time (the census): a link made from outside
// moves the file's change time, so the first stat of it after the link
// puts it among the changes every search reads. A search trusts a file
// without a watch of its own only while the last stat of its chunk
// began at most Options.CensusBound before the search; the files of an
// older chunk it stats itself, as the census would have, and its sweep
// counts as the census's. So a write through a link made from outside is
// seen by every search that starts more than the bound after the link
// was made.

// DefaultCensusBound is Options.CensusBound's default.
const DefaultCensusBound = 30 * time.Second

// censusChunk is how many files the census stats at a time, and the
// unit a search finds fresh or stale (a variable for tests).
var censusChunk = 4096

// census is one checked root's background stats of its files without a
// watch of their own (pruneState.externalIDs), in chunks of censusChunk.
type census struct {
	bound time.Duration // < 0: every search stats those files itself
	ids   []int32       // pruneState.externalIDs
	// at: per chunk, the start (Unix ns) of the last stat of all its files.
	at   []atomic.Int64
	used atomic.Int64 // the last search (Unix ns)
	wake chan struct{}
	// passes counts the chunks stat'ed, by the census and by the
	// searches' sweeps (for tests).
	passes atomic.Int64
}

// chunk is the files of chunk k.
func (c *census) chunk(k int) []int32 {
	return c.ids[k*censusChunk : min((k+1)*censusChunk, len(c.ids))]
}

// chunkOf is the chunk of the file id, one of c.ids.
func (c *census) chunkOf(id int) int {
	i := sort.Search(len(c.ids), func(i int) bool { return int(c.ids[i]) >= id })
	return i / censusChunk
}

// stale returns the chunks a search starting now must stat itself (nil
// when none; every chunk when there is no census): their last stat began
// more than the bound ago. It also tells the census a search came.
func (c *census) stale(now time.Time) []bool {
	if c == nil || len(c.at) == 0 {
		return nil
	}
	c.used.Store(now.UnixNano())
	select {
	case c.wake <- struct{}{}:
	default:
	}
	var out []bool
	for k := range c.at {
		if c.bound < 0 || now.UnixNano()-c.at[k].Load() > int64(c.bound) {
			if out == nil {
				out = make([]bool, len(c.at))
			}
			out[k] = true
		}
	}
	return out
}

// passed records that every file of chunk k was stat'ed from start on,
// what moved already in the overlay.
func (c *census) passed(k int, start time.Time) {
	for {
		old := c.at[k].Load()
		if old >= start.UnixNano() || c.at[k].CompareAndSwap(old, start.UnixNano()) {
			break
		}
	}
	c.passes.Add(1)
}
