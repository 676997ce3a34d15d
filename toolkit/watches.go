package toolkit

import (
	"errors"

	"github.com/fsmcp/fsmcp/watch"
)

// MaxWatches bounds the watchers one session holds, whichever tools
// started them (fs_watch, watch_folder): each costs inotify watches, a
// kernel-wide resource.
const MaxWatches = 8

// ErrSessionClosing refuses per-session state to a session (or server)
// that is ending.
var ErrSessionClosing = errors.New("the session is closing")

// watchesSlot holds the session's watch registry.
var watchesSlot = NewSlot[*watch.Set]("watches")

func newWatchSet() (*watch.Set, error) { return watch.NewSet(MaxWatches), nil }

// Watches is the session's one watch registry: every tool that watches
// keeps its watchers here, so the bound (MaxWatches) is the session's, not
// a tool's, and they all stop when the session ends. Ids share one
// namespace. Calls without a session (a handler called directly) share
// one, stopped when the server closes.
func (c *Call) Watches() (*watch.Set, error) {
	set, err := watchesSlot.Get(c.Sessions, c.Session(), newWatchSet)
	if err != nil {
		return nil, ErrSessionClosing
	}
	return set, nil
}

// HandleWatches is the watch registry of a session handle, the stand-in
// for a session where the connection has none (the 2026-07-28 era):
// bounded and shared as a session's. release must be called when the
// call is done, so the handle is not reaped while in use.
func (c *Call) HandleWatches(handle string) (set *watch.Set, release func(), err error) {
	return watchesSlot.GetByHandle(c.Sessions, handle, newWatchSet)
}
