package toolkit

import (
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Slot is one kind of per-session value, of type T: the typed key under
// which Sessions keeps it. A tool declares its slot once (a shell, a watch
// registry) and every read of it has that type, checked by the compiler
// rather than asserted at run time; two slots never share a key by
// accident because each owns its name.
type Slot[T io.Closer] struct{ key string }

// NewSlot declares a slot; name must be unique among the server's slots.
func NewSlot[T io.Closer](name string) Slot[T] { return Slot[T]{key: name} }

// Get returns the session's value, creating it on first use; it is closed
// when the session ends. It fails only when the session (or the server)
// is closing.
func (sl Slot[T]) Get(s *Sessions, ss *mcp.ServerSession, create func() (T, error)) (T, error) {
	v, err := s.get(ss, sl.key, func() (closer, error) { return create() })
	if err != nil {
		var zero T
		return zero, err
	}
	return v.(T), nil
}

// Lookup returns the session's value if it has one, creating nothing.
func (sl Slot[T]) Lookup(s *Sessions, ss *mcp.ServerSession) (T, bool) {
	v, ok := s.lookup(ss, sl.key)
	if !ok {
		var zero T
		return zero, false
	}
	t, ok := v.(T)
	return t, ok
}

// Retire forgets the session's value (closing it), so the next Get
// creates it anew.
func (sl Slot[T]) Retire(s *Sessions, ss *mcp.ServerSession) { s.retire(ss, sl.key) }

// GetByHandle is Get for a session handle (MintHandle), where the
// connection has no session: release must be called when the call is
// done, so the handle is not reaped while in use.
func (sl Slot[T]) GetByHandle(s *Sessions, handle string, create func() (T, error)) (v T, release func(), err error) {
	c, release, err := s.getByHandle(handle, sl.key, func() (closer, error) { return create() })
	if err != nil {
		var zero T
		return zero, nil, err
	}
	return c.(T), release, nil
}
