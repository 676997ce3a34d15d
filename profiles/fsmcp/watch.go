package fsmcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/profiles/watches"
	"github.com/fsmcp/fsmcp/toolkit"
	"github.com/fsmcp/fsmcp/watch"
)

type watchIn struct {
	Path      string   `json:"path,omitempty" jsonschema:"Absolute path of the directory to watch (action start)"`
	Patterns  []string `json:"patterns,omitempty" jsonschema:"Globs (doublestar) an entry's name or path relative to the watched directory must match; none: every change"`
	Action    string   `json:"action,omitempty" jsonschema:"start (the default), poll (return and clear the pending events) or stop"`
	WatcherID string   `json:"watcher_id,omitempty" jsonschema:"The id start returned (actions poll and stop)"`
	Session   string   `json:"session,omitempty" jsonschema:"The session the watch belongs to, as start's answer named it (where the connection has no session); omit to use this connection's session"`
}

// Watch is fs_watch: follow changes under a directory tree.
func Watch() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_watch",
		Description: "Watch a directory tree for changes (recursively; new subdirectories are watched as they appear). " +
			"action=start returns a watcher_id; each change is then sent to this session as a notifications/resources/updated " +
			"notification with the file's file:// URI, and also queued: action=poll with the watcher_id returns and clears the " +
			"queued events (for clients that cannot take notifications), action=stop ends the watch. Watches end with the session; " +
			fmt.Sprintf("a session may hold %d. ", watches.Max) +
			"Where the connection has no session (the 2026-07-28 protocol over HTTP), start's answer names one and events are only queued: pass it as session to poll and stop.",
		Annotations: toolkit.ReadOnly("Watch directory"),
	}, func(ctx context.Context, c *toolkit.Call, in watchIn) (*mcp.CallToolResult, error) {
		set, handle, release, err := watchSet(c, in)
		if err != nil {
			return nil, err
		}
		defer release()
		switch in.Action {
		case "", "start":
			return start(ctx, c, set, in, handle)
		case "poll":
			w, err := watcher(set, in.WatcherID)
			if err != nil {
				return nil, err
			}
			return toolkit.Text(formatEvents(in.WatcherID, w)), nil
		case "stop":
			if _, err := watcher(set, in.WatcherID); err != nil {
				return nil, err
			}
			if _, err := set.Stop(in.WatcherID); err != nil {
				return nil, err
			}
			return toolkit.Text(fmt.Sprintf("Stopped watcher %s.", in.WatcherID)), nil
		}
		return nil, toolkit.InvalidParams("action must be start, poll or stop, not %q", in.Action)
	})
}

// errTooManyWatches is the refusal of a start past the session's bound.
var errTooManyWatches = fmt.Errorf("this session already has %d watches, the most it may hold; stop one (action=stop) before starting another", watches.Max)

// watchSet returns the watches a call works on: its handle's (a new one
// for a start where the call has no lasting session), else its MCP
// session's. handle is the handle used ("" for the session's); release
// must be called when the call is done.
func watchSet(c *toolkit.Call, in watchIn) (set *watch.Set, handle string, release func(), err error) {
	handle = in.Session
	if handle == "" && !c.Sessionless() {
		set, err := watches.Of(c)
		return set, "", func() {}, err
	}
	if handle == "" {
		if in.Action != "" && in.Action != "start" {
			return nil, "", nil, toolkit.InvalidParams("session is required for %s here: this connection has no session, and start's answer named the watch's", in.Action)
		}
		if handle, err = c.Sessions.MintHandle(); err != nil {
			return nil, "", nil, err
		}
	}
	set, release, err = watches.OfHandle(c, handle)
	return set, handle, release, err
}

func start(ctx context.Context, c *toolkit.Call, set *watch.Set, in watchIn, handle string) (*mcp.CallToolResult, error) {
	if in.Path == "" {
		return nil, toolkit.InvalidParams("path is required to start a watch")
	}
	p, err := c.Resolve(in.Path)
	if err != nil {
		return nil, err
	}
	if set.Full() {
		return nil, errTooManyWatches
	}
	// A handle's watch outlives the call's short session: its events
	// are queued for poll only.
	var onEvents func([]watch.Event)
	if handle == "" {
		onEvents = watches.Notifier(c.Session())
	}
	w, err := watch.New(p, watch.Options{Patterns: in.Patterns, OnEvents: onEvents, Context: ctx})
	if err != nil {
		return nil, err
	}
	id, err := set.Add("", w)
	if err != nil {
		w.Close()
		return nil, errTooManyWatches
	}
	filter := ""
	if len(in.Patterns) > 0 {
		filter = " matching " + strings.Join(in.Patterns, ", ")
	}
	text := fmt.Sprintf("Watching %s (%d director%s)%s as watcher %s. Changes arrive as notifications/resources/updated; "+
		"or call fs_watch with action=poll and watcher_id=%s.", p.Abs, w.Dirs(), plural(w.Dirs(), "y", "ies"), filter, id, id)
	if handle != "" {
		text = fmt.Sprintf("Watching %s (%d director%s)%s as watcher %s. Changes are queued: call fs_watch with action=poll, watcher_id=%s and session=%s.",
			p.Abs, w.Dirs(), plural(w.Dirs(), "y", "ies"), filter, id, id, handle)
	}
	for _, n := range w.Notes() {
		text += "\n" + n
	}
	if handle != "" {
		text += "\n" + handleNote(handle)
	}
	return toolkit.Text(text), nil
}

// watcher finds the session's watcher for poll and stop.
func watcher(set *watch.Set, id string) (*watch.Watcher, error) {
	if id == "" {
		return nil, toolkit.InvalidParams("watcher_id is required for poll and stop")
	}
	w, ok := set.Get(id)
	if !ok {
		return nil, fmt.Errorf("no watcher %s in this session (it was stopped, or never started here)", id)
	}
	return w, nil
}

func formatEvents(id string, w *watch.Watcher) string {
	evs, dropped, err := w.Poll()
	var b strings.Builder
	for _, e := range evs {
		kind := ""
		if e.IsDir {
			kind = " (directory)"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s%s\n", e.Time.Format(time.RFC3339Nano), e.Op, escape.Name(e.Path), kind)
	}
	if len(evs) == 0 {
		fmt.Fprintf(&b, "No new events for watcher %s.\n", id)
	}
	if dropped > 0 {
		fmt.Fprintf(&b, "(%d older events were dropped: the queue holds %d; poll more often or narrow patterns)\n", dropped, watch.DefaultMaxQueue)
	}
	if err != nil {
		fmt.Fprintf(&b, "(the watch reported an error: %v)\n", err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
