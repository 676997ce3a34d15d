package queue

import (
	"context"
	"sync"
	"time"
)

// WithCallTimeout is context.WithTimeout for one tool call, with a clock
// that stops while the call waits for a search slot (Admission): a
// queued search's --timeout starts when it runs, so a burst of searches
// queues instead of each timing out half-done. Err is
// context.DeadlineExceeded when the time runs out, as with WithTimeout.
func WithCallTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c := &callClock{parent: parent, done: make(chan struct{}), left: d, since: time.Now()}
	c.mu.Lock() // the timer may fire before it is stored
	c.timer = time.AfterFunc(d, func() { c.end(context.DeadlineExceeded) })
	c.mu.Unlock()
	stop := context.AfterFunc(parent, func() { c.end(parent.Err()) })
	return c, func() {
		stop()
		c.end(context.Canceled)
	}
}

// callClock is the context WithCallTimeout returns.
type callClock struct {
	parent context.Context
	done   chan struct{}
	timer  *time.Timer

	mu    sync.Mutex
	err   error
	held  int           // Hold calls not yet Resumed
	left  time.Duration // time left when the clock last started
	since time.Time     // when it last started
}

type clockKey struct{}

func (c *callClock) Deadline() (time.Time, bool) { return c.parent.Deadline() }
func (c *callClock) Done() <-chan struct{}       { return c.done }

// Err is the clock's end, as soon as its time is up: a clock whose time
// ran out ends when asked, not only when its timer's goroutine gets to
// run (a 1 ns limit must stop a call, however fast the machine).
func (c *callClock) Err() error {
	c.mu.Lock()
	err, over := c.err, c.err == nil && c.held == 0 && time.Since(c.since) >= c.left
	c.mu.Unlock()
	if over {
		c.end(context.DeadlineExceeded)
		return c.Err()
	}
	return err
}

func (c *callClock) Value(key any) any {
	if key == (clockKey{}) {
		return c
	}
	return c.parent.Value(key)
}

func (c *callClock) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	c.timer.Stop()
	close(c.done)
}

// hold stops the clock (nested holds keep it stopped until the last
// resume).
func (c *callClock) hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held++; c.held == 1 && c.err == nil && c.timer.Stop() {
		c.left -= time.Since(c.since)
	}
}

// resume starts the clock again with the time that was left.
func (c *callClock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held--; c.held == 0 && c.err == nil {
		c.since = time.Now()
		c.timer.Reset(max(c.left, 0))
	}
}

// clockOf is ctx's call clock, or nil.
func clockOf(ctx context.Context) *callClock {
	c, _ := ctx.Value(clockKey{}).(*callClock)
	return c
}
