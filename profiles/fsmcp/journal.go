package fsmcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/toolkit"
)

// errJournalOff answers fs_history and fs_undo when there is no journal.
var errJournalOff = errors.New("the change journal is off (fsmcp was started with --journal off), so there is no history and nothing to undo")

// journalStore finds the journal of the root that holds path (the first
// root when path is empty).
func journalStore(c *toolkit.Call, path string) (*journal.Set, *journal.Store, error) {
	if path == "" {
		roots, err := c.Roots()
		if err != nil {
			return nil, nil, err
		}
		path = roots[0]
	}
	p, err := c.Resolve(path)
	if err != nil {
		return nil, nil, err
	}
	j := journal.Active()
	if j == nil {
		return nil, nil, errJournalOff
	}
	st, err := j.StoreFor(p)
	if err != nil {
		return nil, nil, err
	}
	return j, st, nil
}

type historyIn struct {
	Path    string `json:"path,omitempty" jsonschema:"An allowed directory, or a path in one, whose changes to list (default: the first allowed directory)"`
	ID      string `json:"id,omitempty" jsonschema:"One change's id: show it with its unified diff"`
	Session string `json:"session,omitempty" jsonschema:"Only this session's changes"`
	Limit   int    `json:"limit,omitempty" jsonschema:"At most this many changes, newest first (default 20)"`
}

// History is fs_history: the journal's recent changes, or one with its diff.
func History() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_history",
		Description: "List the recent file changes fsmcp made (newest first: id, time, tool, session, paths, sizes before -> after), " +
			"or, given id, that change with its unified diff. Every write, edit, delete, move and copy of every tool is journaled; " +
			"fs_bash's changes are not. Undo one with fs_undo.",
		Annotations: toolkit.ReadOnly("Change history"),
	}, func(ctx context.Context, c *toolkit.Call, in historyIn) (*mcp.CallToolResult, error) {
		_, st, err := journalStore(c, in.Path)
		if err != nil {
			return nil, err
		}
		sel := journal.Select{ID: in.ID, Session: in.Session, Last: in.Limit}
		if sel.Last <= 0 {
			sel.Last = 20
		}
		es, err := st.Pick(sel)
		if err != nil {
			return nil, err
		}
		if len(es) == 0 {
			return toolkit.Text(fmt.Sprintf("No changes journaled in %s", st.Root())), nil
		}
		var b strings.Builder
		for _, e := range es {
			b.WriteString(st.Line(e) + "\n")
			if in.ID != "" {
				b.WriteString(st.Diff(e, c.Sandbox))
			}
		}
		return toolkit.Text(strings.TrimRight(b.String(), "\n")), nil
	})
}

type undoIn struct {
	Path    string `json:"path,omitempty" jsonschema:"An allowed directory, or a path in one, whose changes to undo (default: the first allowed directory)"`
	ID      string `json:"id,omitempty" jsonschema:"Undo this one change (ids from fs_history)"`
	Session string `json:"session,omitempty" jsonschema:"Undo every change of this session"`
	Since   string `json:"since,omitempty" jsonschema:"Undo every change made within this long, e.g. 10m or 2h"`
	Force   bool   `json:"force,omitempty" jsonschema:"Undo even files changed since by someone else (default false: they are skipped and named)"`
}

// Undo is fs_undo: revert journaled changes, newest first.
func Undo() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_undo",
		Description: "Undo file changes fsmcp made: one change (id), a session's changes (session) or every change since a time (since: 10m, 2h), " +
			"newest first, restoring content, mode and modification time. A file that changed since is skipped and named unless force. " +
			"The undo is itself journaled: undoing it redoes. fs_bash's changes are not journaled and cannot be undone.",
		Annotations: toolkit.Writes("Undo changes", true, false),
	}, func(ctx context.Context, c *toolkit.Call, in undoIn) (*mcp.CallToolResult, error) {
		sel := journal.Select{ID: in.ID, Session: in.Session}
		if in.Since != "" {
			d, err := time.ParseDuration(in.Since)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("since: %q is not a duration (try 10m or 2h)", in.Since)
			}
			sel.Since = time.Now().Add(-d)
		}
		if sel == (journal.Select{}) {
			return nil, errors.New("say what to undo: id, session or since")
		}
		j, st, err := journalStore(c, in.Path)
		if err != nil {
			return nil, err
		}
		es, err := st.Pick(sel)
		if err != nil {
			return nil, err
		}
		r := j.Undo(ctx, c.Sandbox, st, es, in.Force)
		if len(r.Restored) == 0 && len(r.Skipped) > 0 {
			return nil, errors.New(r.String())
		}
		return toolkit.Text(r.String()), nil
	})
}

// JournalTable serves fs_history and fs_undo beside another profile's
// tools (--journal-tools); the fsmcp profile has them already.
func JournalTable() *toolkit.Table {
	return &toolkit.Table{
		Name:   "journal-tools",
		Tools:  []toolkit.Tool{History(), Undo()},
		Paths:  toolkit.Absolute,
		Errors: argumentErrorsAsText,
	}
}
