package index

import (
	"context"
	"log/slog"
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

// censusIdle is how long the census goes on after the last search; the
// first search after it stats the files itself (and wakes the census).
const censusIdle = 10 * time.Minute

// censusChunk is how many files the census stats at a time, and the
// unit a search finds fresh or stale (a variable for tests).
var censusChunk = 4096

// censusDuty is the share of one core the census may take (a quarter):
// it rests three times as long as a chunk took. On the 1M-file tree a
// round of stats took 5.3-5.9 s under a load of 4-8 on the development
// VM (about 3 µs of CPU a stat); a fifth of a core made its rounds last
// 27-30 s, at the 30 s bound, so searches stat'ed chunks themselves.
const censusDuty = 4

// censusBoundText is the bound as the log says it.
func censusBoundText(d time.Duration) string {
	if d < 0 {
		return "none: every search stats those files"
	}
	return d.String()
}

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

func newCensus(bound time.Duration, ids []int32, checked time.Time) *census {
	c := &census{bound: bound, ids: ids, at: make([]atomic.Int64, (len(ids)+censusChunk-1)/censusChunk), wake: make(chan struct{}, 1)}
	for i := range c.at {
		c.at[i].Store(checked.UnixNano())
	}
	c.used.Store(time.Now().UnixNano())
	return c
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

// run stats ps's files without a watch of their own, a chunk at a time,
// each in turn, until done is closed: at most a quarter of a core
// (each chunk followed by a rest three times its length), and no faster
// than a round of every chunk in half the bound. While no search came
// for censusIdle, none is stat'ed. A file whose metadata moved goes into
// the overlay, read by every search from then on.
func (c *census) run(ps *pruneState, done <-chan struct{}, log *slog.Logger) {
	if c == nil || c.bound < 0 || len(c.at) == 0 {
		return
	}
	even := c.bound / 2 / time.Duration(len(c.at)) // a chunk's share of half the bound
	var round time.Time
	var busy time.Duration
	rounds := 0
	for k := 0; ; k = (k + 1) % len(c.at) {
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
		if k == 0 {
			if !round.IsZero() {
				lvl := slog.LevelDebug
				if rounds++; rounds == 1 {
					lvl = slog.LevelInfo // the first, to say what it costs
				}
				log.Log(context.Background(), lvl, "index: a round of the census", "root", ps.ix.root, "files", len(c.ids), "chunks", len(c.at), "took", time.Since(round).Round(time.Millisecond), "stating", busy.Round(time.Millisecond))
			}
			round, busy = time.Now(), 0
		}
		start := time.Now()
		c.pass(ps, k)
		took := time.Since(start)
		busy += took
		if rest := max((censusDuty-1)*took, even-took); rest > 0 {
			t := time.NewTimer(rest)
			select {
			case <-done:
				t.Stop()
				return
			case <-t.C:
			}
		}
	}
}

// pass stats every file of chunk k on one goroutine, puts those whose
// metadata moved in the overlay, and then records the chunk's stat.
func (c *census) pass(ps *pruneState, k int) {
	start := time.Now()
	for _, id := range sweepWith(ps.ix, c.chunk(k), 1) {
		ps.w.ov.changed(string(ps.ix.nameBytes(id)), false)
	}
	c.passed(k, start)
}

// passAll stats every chunk (for tests).
func (c *census) passAll(ps *pruneState) {
	for k := range c.at {
		c.pass(ps, k)
	}
}
