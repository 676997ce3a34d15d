package toolkit

import (
	"crypto/rand"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sessions keeps per-MCP-session state (a shell, watchers) and closes it
// when the session ends or the server stops.
type Sessions struct {
	mu      sync.Mutex
	values  map[*mcp.ServerSession]map[string]closer
	closed  bool
	closing sync.WaitGroup // sessions that ended and are still closing their values
	retired int64          // values retired so far: each gets a key of its own

	// handles: state kept for a protocol without sessions (handles.go).
	handles    map[string]*handle
	maxHandles int
	handleIdle time.Duration
	// stateKey signs the request state of a question to a client that
	// has no session (roots.go), made afresh for each server.
	stateKey [32]byte
}

// closer is a per-session value.
type closer = io.Closer

// NewSessions returns an empty registry.
func NewSessions() *Sessions {
	s := &Sessions{values: map[*mcp.ServerSession]map[string]closer{}}
	rand.Read(s.stateKey[:])
	return s
}

// get returns the session's value under key, creating it on first use. The
// value is closed when the session ends.
func (s *Sessions) get(ss *mcp.ServerSession, key string, create func() (closer, error)) (closer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, io.ErrClosedPipe
	}
	vals, seen := s.values[ss]
	if v, ok := vals[key]; ok {
		return v, nil
	}
	v, err := create()
	if err != nil {
		return nil, err
	}
	if !seen {
		vals = map[string]closer{}
		s.values[ss] = vals
		if ss != nil {
			go func() {
				ss.Wait()
				s.end(ss)
			}()
		}
	}
	vals[key] = v
	return v, nil
}

// lookup returns the session's value under key, if there is one.
func (s *Sessions) lookup(ss *mcp.ServerSession, key string) (closer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.values[ss][key]
	return v, ok
}

// retire forgets the session's value under key, so the next get creates it
// anew. The old value is closed only when the session ends, since a call in
// flight may still use it.
func (s *Sessions) retire(ss *mcp.ServerSession, key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vals := s.values[ss]
	if v, ok := vals[key]; ok {
		delete(vals, key)
		s.retired++
		vals[retiredPrefix+strconv.FormatInt(s.retired, 10)] = v
	}
}

const retiredPrefix = "retired:"

// end closes one session's values.
func (s *Sessions) end(ss *mcp.ServerSession) {
	s.mu.Lock()
	if s.closed { // Close took every value, this session's too
		s.mu.Unlock()
		return
	}
	vals := s.values[ss]
	delete(s.values, ss)
	s.closing.Add(1)
	s.mu.Unlock()
	defer s.closing.Done()
	for _, v := range vals {
		v.Close()
	}
}

// Close closes every session's values; later Gets fail. It returns only
// once sessions that ended just before have closed theirs too (a shell
// kills what it left running), so the server may exit right after.
func (s *Sessions) Close() {
	s.mu.Lock()
	all := s.values
	s.values = map[*mcp.ServerSession]map[string]closer{}
	s.closed = true
	var held []map[string]closer
	for id := range s.handles {
		held = append(held, s.dropHandle(id))
	}
	s.mu.Unlock()
	for _, vals := range held {
		closeAll(vals)
	}
	for _, vals := range all {
		for _, v := range vals {
			v.Close()
		}
	}
	s.closing.Wait()
}
