// Package watches is the session's one watch registry, shared by the
// profiles that watch (fsmcp's fs_watch, LocalCowork's watch_folder): the
// watchers of every such tool are kept in it, so the bound (Max) is the
// session's, not a tool's, and they all stop when the session ends. It
// joins package watch (the core) to toolkit's sessions, so that toolkit
// needs no watch.
package watches

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/toolkit"
	"github.com/fsmcp/fsmcp/watch"
)

// Max bounds the watchers one session holds, whichever tools started
// them: each costs inotify watches, a kernel-wide resource.
const Max = 8

// slot holds the session's watch registry.
var slot = toolkit.NewSlot[*watch.Set]("watches")

func newSet() (*watch.Set, error) { return watch.NewSet(Max), nil }

// Of is the call's session's watch registry. Ids share one namespace.
// Calls without a session (a handler called directly) share one, stopped
// when the server closes.
func Of(c *toolkit.Call) (*watch.Set, error) {
	set, err := slot.Get(c.Sessions, c.Session(), newSet)
	if err != nil {
		return nil, toolkit.ErrSessionClosing
	}
	return set, nil
}

// OfHandle is the watch registry of a session handle, the stand-in for
// a session where the connection has none (the 2026-07-28 era): bounded
// and shared as a session's. release must be called when the call is
// done, so the handle is not reaped while in use.
func OfHandle(c *toolkit.Call, handle string) (set *watch.Set, release func(), err error) {
	return slot.GetByHandle(c.Sessions, handle, newSet)
}

// Notifier sends a watcher's events to the session that started it, as
// notifications/resources/updated; nil without a session. It stops at
// the first failure: the session is gone or not listening, and a poll
// still has the events.
func Notifier(ss *mcp.ServerSession) func([]watch.Event) {
	if ss == nil {
		return nil
	}
	return func(evs []watch.Event) {
		for _, e := range evs {
			if toolkit.NotifyUpdated(ss, e.Path) != nil {
				return
			}
		}
	}
}
