package index

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// The census's background half: only Linux checks a root (check_linux.go),
// so only there is a census made and run; census.go holds what a search
// asks of one everywhere.

// censusIdle is how long the census goes on after the last search; the
// first search after it stats the files itself (and wakes the census).
const censusIdle = 10 * time.Minute

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

// newCensus is the census of ids, each chunk counted as stat'ed when
// the root was checked.
func newCensus(bound time.Duration, ids []int32, checked time.Time) *census {
	c := &census{bound: bound, ids: ids, at: make([]atomic.Int64, (len(ids)+censusChunk-1)/censusChunk), wake: make(chan struct{}, 1)}
	for i := range c.at {
		c.at[i].Store(checked.UnixNano())
	}
	c.used.Store(time.Now().UnixNano())
	return c
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
