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
