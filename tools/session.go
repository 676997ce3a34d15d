package tools

import (
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sessions keeps per-MCP-session state (a shell, watchers) and closes it
// when the session ends or the server stops.
type Sessions struct {
	mu     sync.Mutex
	values map[*mcp.ServerSession]map[string]io.Closer
	closed bool
}

// NewSessions returns an empty registry.
func NewSessions() *Sessions {
	return &Sessions{values: map[*mcp.ServerSession]map[string]io.Closer{}}
}

// Get returns the session's value under key, creating it on first use. The
// value is closed when the session ends.
func (s *Sessions) Get(ss *mcp.ServerSession, key string, create func() (io.Closer, error)) (io.Closer, error) {
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
		vals = map[string]io.Closer{}
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

// end closes one session's values.
func (s *Sessions) end(ss *mcp.ServerSession) {
	s.mu.Lock()
	vals := s.values[ss]
	delete(s.values, ss)
	s.mu.Unlock()
	for _, v := range vals {
		v.Close()
	}
}

// Close closes every session's values; later Gets fail.
func (s *Sessions) Close() {
	s.mu.Lock()
	all := s.values
	s.values = map[*mcp.ServerSession]map[string]io.Closer{}
	s.closed = true
	s.mu.Unlock()
	for _, vals := range all {
		for _, v := range vals {
			v.Close()
		}
	}
}
