package fsmcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/toolkit"
)

// errJournalOff answers fs_history and fs_undo when there is no journal.
var errJournalOff = errors.New("the change journal is off (fsmcp was started with --journal off), so there is no history and nothing to undo")

// journalStore finds the journal of the DIR that holds path (the first
// root when path is empty), and the slash path below that DIR the call
// concerns.
func journalStore(ctx context.Context, c *toolkit.Call, p string) (*journal.Set, *journal.Store, string, error) {
	if p == "" {
		roots, err := c.Roots()
		if err != nil {
			return nil, nil, "", err
		}
		p = roots[0]
	}
	sp, err := c.Resolve(p)
	if err != nil {
		return nil, nil, "", err
	}
	j := journal.From(ctx).Set()
	if j == nil {
		return nil, nil, "", errJournalOff
	}
	st, within, err := j.StoreOf(sp)
	if err != nil {
		return nil, nil, "", err
	}
	return j, st, within, nil
}

type historyIn struct {
	Path    string `json:"path,omitempty" jsonschema:"An allowed directory, or a path in one, whose changes to list (default: the first allowed directory)"`
	ID      string `json:"id,omitempty" jsonschema:"One change's id: show it with its unified diff"`
	Session string `json:"session,omitempty" jsonschema:"Only this session's changes (the label history shows)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"At most this many changes, newest first (default 20)"`
}

// History is fs_history: the journal's recent changes, or one with its diff.
func History() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_history",
		Description: "Show the history of file changes made through fsmcp, newest first: id, time, tool, session, the command for fs_bash, " +
			"what happened to which paths, and whether it was undone; given id, that change with its unified diff. " +
			"Every change of every tool and every fs_bash command is journaled. Undo one with fs_undo.",
		Annotations: toolkit.ReadOnly("Change history"),
	}, func(ctx context.Context, c *toolkit.Call, in historyIn) (*mcp.CallToolResult, error) {
		_, st, within, err := journalStore(ctx, c, in.Path)
		if err != nil {
			return nil, err
		}
		sel := journal.Select{ID: in.ID, Session: in.Session, Last: in.Limit, Within: within}
		if sel.Last <= 0 {
			sel.Last = 20
		}
		es, err := st.Pick(sel, journal.ForListing)
		if err != nil {
			return nil, err
		}
		if len(es) == 0 {
			return toolkit.Text(fmt.Sprintf("No changes journaled in %s", escape.Name(st.Root()))), nil
		}
		var b strings.Builder
		for _, e := range es {
			e = e.For(c.Sandbox.Contains) // what lies in the caller's directories
			b.WriteString(e.Line() + "\n")
			if in.ID != "" {
				b.WriteString(e.Diff(c.Sandbox))
			}
		}
		return toolkit.Text(strings.TrimRight(b.String(), "\n")), nil
	})
}

type undoIn struct {
	Path    string `json:"path,omitempty" jsonschema:"An allowed directory, or a path in one, whose changes to undo (default: the first allowed directory)"`
	ID      string `json:"id,omitempty" jsonschema:"Undo this one change (ids from fs_history); the id of an undo redoes what it undid"`
	Last    int    `json:"last,omitempty" jsonschema:"Undo the last N changes not undone yet, newest first"`
	Session string `json:"session,omitempty" jsonschema:"Undo every change of this session (the label history shows)"`
	Since   string `json:"since,omitempty" jsonschema:"Undo every change made within this long, e.g. 10m or 2h"`
	Force   bool   `json:"force,omitempty" jsonschema:"Undo even files changed since by someone else, or a change the undo could not keep to redo (default false: such a change is skipped and they are named)"`
}

// Undo is fs_undo: revert journaled changes, newest first.
func Undo() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_undo",
		Description: "Undo changes made through fsmcp, file tools and fs_bash commands alike: one change (id), the last N (last), " +
			"a session's (session) or every change since a time (since: 10m, 2h), newest first, restoring contents, directory trees, " +
			"links, modes, owners and times. A change whose files changed since is skipped and they are named, unless force. " +
			"The undo is itself journaled: undoing its id redoes.",
		Annotations: toolkit.Writes("Undo changes", true, false),
	}, func(ctx context.Context, c *toolkit.Call, in undoIn) (*mcp.CallToolResult, error) {
		sel := journal.Select{ID: in.ID, Session: in.Session, Last: in.Last}
		if in.Last < 0 {
			return nil, toolkit.InvalidParams("invalid arguments: last must be a positive number")
		}
		if in.Since != "" {
			d, err := time.ParseDuration(in.Since)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("since: %q is not a duration (try 10m or 2h)", in.Since)
			}
			sel.Since = time.Now().Add(-d)
		}
		if sel == (journal.Select{}) {
			return nil, errors.New("say what to undo: id, last, session or since")
		}
		j, st, within, err := journalStore(ctx, c, in.Path)
		if err != nil {
			return nil, err
		}
		sel.Within = within
		es, err := st.Pick(sel, journal.ForUndo)
		if err != nil {
			return nil, err
		}
		r := j.Undo(ctx, c.Sandbox, es, in.Force, journal.Actor{Tool: "fs_undo"})
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
		Name:  "journal-tools",
		Tools: []toolkit.Tool{History(), Undo()},
		Arguments: toolkit.Arguments{
			Paths: toolkit.Absolute,
		},
		Wording: toolkit.Wording{
			Errors: argumentErrorsAsText,
		},
	}
}
