package toolkit

import (
	"errors"
	"io"

	"github.com/fsmcp/fsmcp/watch"
)

// MaxWatches bounds the watchers one session holds, whichever tools
// started them (fs_watch, watch_folder): each costs inotify watches, a
// kernel-wide resource.
const MaxWatches = 8

// ErrSessionClosing refuses per-session state to a session (or server)
// that is ending.
var ErrSessionClosing = errors.New("the session is closing")

// watchesKey is the Sessions key of the session's watch registry.
const watchesKey = "watches"

// Watches is the session's one watch registry: every tool that watches
// keeps its watchers here, so the bound (MaxWatches) is the session's, not
// a tool's, and they all stop when the session ends. Ids share one
// namespace. Calls without a session (a handler called directly) share
// one, stopped when the server closes.
func (c *Call) Watches() (*watch.Set, error) {
	v, err := c.Sessions.Get(c.Session(), watchesKey, func() (io.Closer, error) { return watch.NewSet(MaxWatches), nil })
	if err != nil {
		return nil, ErrSessionClosing
	}
	return v.(*watch.Set), nil
}

// HandleWatches is the watch registry of a session handle, the stand-in
// for a session where the connection has none (the 2026-07-28 era):
// bounded and shared as a session's. release must be called when the
// call is done, so the handle is not reaped while in use.
func (c *Call) HandleWatches(handle string) (set *watch.Set, release func(), err error) {
	v, release, err := c.Sessions.GetByHandle(handle, watchesKey, func() (io.Closer, error) { return watch.NewSet(MaxWatches), nil })
	if err != nil {
		return nil, nil, err
	}
	return v.(*watch.Set), release, nil
}
