package backend

import (
	"sync"
	"sync/atomic"
	"time"
)

// progressInterval is the least time between two progress callbacks, so
// a fast search does not flood the client with notifications.
const progressInterval = 100 * time.Millisecond

// Progress counts files for a query's Progress callback and calls it at
// most once per progressInterval, never concurrently, with an increasing
// count. A nil *Progress or one without a callback does nothing.
type Progress struct {
	fn   func(int64)
	n    atomic.Int64
	mu   sync.Mutex
	last time.Time
	sent int64
}

// NewProgress returns a Progress reporting to fn (which may be nil).
func NewProgress(fn func(int64)) *Progress { return &Progress{fn: fn} }

// Add counts one file.
func (p *Progress) Add() {
	if p == nil || p.fn == nil {
		return
	}
	n := p.n.Add(1)
	if n%64 != 0 && n != 1 {
		return // look at the clock only now and then
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n > p.sent && time.Since(p.last) >= progressInterval {
		p.last, p.sent = time.Now(), n
		p.fn(n)
	}
}
