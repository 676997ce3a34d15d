package toolkit

import (
	"crypto/rand"
	"fmt"
	"io"
	"time"

	"github.com/fsmcp/fsmcp/fault"
)

// Handles are the sessions of a protocol that has none. Over HTTP the
// 2026-07-28 protocol serves each request on its own short-lived MCP
// session, so what a session carried (fs_bash's shell and working
// directory) hangs instead on a handle the server mints, names in its
// answer, and the model passes back as an ordinary argument. Handles are
// bounded and reaped as sessions are: at most MaxHandles at once, each
// ended after HandleIdle without a call.
//
// They live in Sessions, beside the sessions' values, so that one Close
// ends both.

// Default bounds of the handles, those of HTTP sessions.
const (
	DefaultMaxHandles = 64
	DefaultHandleIdle = 30 * time.Minute
)

// handlePrefix starts every handle, so a session id of another kind is
// told apart in the refusal.
const handlePrefix = "sess-"

type handle struct {
	vals  map[string]closer
	busy  int // calls using it now: never reaped under them
	last  time.Time
	timer *time.Timer
}

// SetHandleBounds sets how many handles may be held at once and how long
// one may sit unused (0: the defaults). It applies to handles minted after.
func (s *Sessions) SetHandleBounds(max int, idle time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxHandles, s.handleIdle = max, idle
}

func (s *Sessions) bounds() (int, time.Duration) {
	max, idle := s.maxHandles, s.handleIdle
	if max <= 0 {
		max = DefaultMaxHandles
	}
	if idle <= 0 {
		idle = DefaultHandleIdle
	}
	return max, idle
}

// MintHandle makes a new handle. When MaxHandles are held, the one unused
// longest (and in no call) is ended to make room; when every one is in a
// call, the mint is refused.
func (s *Sessions) MintHandle() (string, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", io.ErrClosedPipe
	}
	max, idle := s.bounds()
	var evicted map[string]closer
	if len(s.handles) >= max {
		oldest := ""
		for id, h := range s.handles {
			if h.busy == 0 && (oldest == "" || h.last.Before(s.handles[oldest].last)) {
				oldest = id
			}
		}
		if oldest == "" {
			s.mu.Unlock()
			return "", fmt.Errorf("fsmcp already holds %d sessions, all running a command; pass one of yours as session, or retry when one is done", max)
		}
		evicted = s.dropHandle(oldest)
	}
	id := handlePrefix + rand.Text()
	h := &handle{vals: map[string]closer{}, last: time.Now()}
	h.timer = time.AfterFunc(idle, func() { s.reap(id) })
	if s.handles == nil {
		s.handles = map[string]*handle{}
	}
	s.handles[id] = h
	s.mu.Unlock()
	closeAll(evicted)
	return id, nil
}

// getByHandle returns the value under key of handle id, creating it on
// first use. The caller calls release when its call is done: the handle
// is not reaped while in use, and its idle time starts from there.
func (s *Sessions) getByHandle(id, key string, create func() (closer, error)) (v closer, release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, io.ErrClosedPipe
	}
	h, ok := s.handles[id]
	if !ok {
		_, idle := s.bounds()
		return nil, nil, fault.New(fault.Invalid, fmt.Sprintf("unknown session %q: it was never made here, or it ended (unused for %v, or the server restarted); omit session to start a new one", id, idle))
	}
	v, ok = h.vals[key]
	if !ok {
		if v, err = create(); err != nil {
			return nil, nil, err
		}
		h.vals[key] = v
	}
	h.busy++
	return v, func() { s.releaseHandle(id, h) }, nil
}

func (s *Sessions) releaseHandle(id string, h *handle) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h.busy--
	h.last = time.Now()
	if s.handles[id] == h {
		_, idle := s.bounds()
		h.timer.Reset(idle)
	}
}

// reap ends handle id if it is idle; a call in it re-arms the timer when
// it is done.
func (s *Sessions) reap(id string) {
	s.mu.Lock()
	h, ok := s.handles[id]
	if !ok || h.busy > 0 {
		s.mu.Unlock()
		return
	}
	_, idle := s.bounds()
	if left := idle - time.Since(h.last); left > 0 {
		h.timer.Reset(left)
		s.mu.Unlock()
		return
	}
	vals := s.dropHandle(id)
	s.mu.Unlock()
	closeAll(vals)
}

// dropHandle forgets handle id and returns its values to close (outside
// the lock: a shell's Close waits for its processes).
func (s *Sessions) dropHandle(id string) map[string]closer {
	h := s.handles[id]
	delete(s.handles, id)
	h.timer.Stop()
	return h.vals
}

func closeAll(vals map[string]closer) {
	for _, v := range vals {
		v.Close()
	}
}
