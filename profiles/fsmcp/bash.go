package fsmcp

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/journal/shellrec"
	"github.com/fsmcp/fsmcp/shell"
	"github.com/fsmcp/fsmcp/toolkit"
)

// shellSlot holds a session's shell.
var shellSlot = toolkit.NewSlot[*shell.Session]("shell")

type bashIn struct {
	Command     string `json:"command" jsonschema:"The bash command to run"`
	Timeout     int    `json:"timeout,omitempty" jsonschema:"Time limit in milliseconds (default 120000, max 600000)"`
	Description string `json:"description,omitempty" jsonschema:"What the command does, in 5-10 words (for logs)"`
	Session     string `json:"session,omitempty" jsonschema:"The shell session to run in, as an earlier fs_bash answer named it (working directory and background processes kept); omit to use this connection's session, or a new one where the protocol has no sessions"`
}

// Bash is fs_bash: a command in a bash whose working directory persists
// across the calls of one MCP session and stays inside the roots.
func Bash() toolkit.Tool {
	t := toolkit.Bind(&mcp.Tool{
		Name: "fs_bash",
		Description: "Run a shell command (bash). The working directory persists across calls of this session (it starts in the first allowed directory; " +
			"a cd outside the allowed directories is refused and the directory stays), environment variables do not. " +
			"Where the connection has no session (the 2026-07-28 protocol over HTTP), the answer names one: pass it back as session. " +
			"stdout and stderr come back together, in order; a non-zero exit status is reported as \"Exit code: N\". " +
			"Output over 30000 characters is cut in the middle. timeout is in milliseconds (default 120000, max 600000); " +
			"on timeout or cancellation the whole process group is killed. Background processes (cmd &) keep running until the session ends; " +
			"redirect their output to a file. Unlike the file tools, commands can read outside the allowed directories (system directories, toolchains); " +
			"sandboxed (the default where Linux has Landlock) they write only inside the allowed directories and a private temp directory. " +
			"Every change a command (and what it starts) makes in the allowed directories is journaled first: fs_history lists it, fs_undo reverts it.",
		Annotations: toolkit.Writes("Run shell command", true, false),
	}, func(ctx context.Context, c *toolkit.Call, in bashIn) (*mcp.CallToolResult, error) {
		if in.Timeout < 0 {
			return nil, toolkit.InvalidParams("invalid arguments: timeout must be a positive number of milliseconds")
		}
		roots, err := c.Roots() // no root: nowhere to start, refused
		if err != nil {
			return nil, err
		}
		sess, handle, release, err := shellFor(c, roots, in.Session)
		if err != nil {
			return nil, err
		}
		defer release()
		if in.Description != "" {
			c.Log.Debug("fs_bash", "description", in.Description)
		}
		// The roots go to the shell as directories opened through the
		// sandbox's handles: its Landlock rules are built on them.
		dirs, err := c.Sandbox.OpenDirs()
		if err != nil {
			return nil, err
		}
		defer dirs.Close()
		// Clamped before it becomes a Duration: milliseconds past ~292
		// years overflow int64 nanoseconds and would wrap to a short time.
		timeout := time.Duration(min(in.Timeout, int(shell.MaxTimeout/time.Millisecond))) * time.Millisecond
		// The command's changes go into the call's journal entry, and
		// those of processes it leaves running into entries of their own.
		var rec shell.Recorder
		bj := shellrec.New(ctx, c.Sandbox, c.Base, in.Command, journal.Actor{Tool: "fs_bash", Session: sessionID(c), Client: clientOf(c)})
		if bj != nil {
			rec = bj
		}
		res, err := sess.RunTraced(ctx, roots, dirs.Files(), in.Command, timeout, rec)
		if bj != nil {
			bj.Returned() // told already, unless the command never ran
			bj.StillOpen(res.Writing, res.Running)
			if err != nil || res.Untraced != "" {
				bj.Finished() // no supervisor: nothing more is told
			}
		}
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, errors.New("the call was cancelled before the shell was free")
			}
			return nil, err
		}
		// fsMCP trims the output's trailing newlines (and spaces).
		res.Output = strings.TrimRightFunc(res.Output, unicode.IsSpace)
		text := res.Text()
		if bj != nil && res.Untraced != "" {
			text += "\n[journal: what this command changed is not kept, so fs_undo cannot revert it: " + res.Untraced + "]"
		}
		if handle != "" {
			text += "\n" + handleNote(handle)
		}
		out := toolkit.Text(text)
		// A refused cd is an error too: the command ran, but not where
		// the agent will think the next one runs.
		out.IsError = res.Failed() || res.RefusedCwd != ""
		return out, nil
	})
	t.OwnTimeout = true
	t.NeedsShell = true
	return t
}

// sessionID is the call's MCP session id ("" where there is none).
func sessionID(c *toolkit.Call) string {
	if ss := c.Session(); ss != nil {
		return ss.ID()
	}
	return ""
}

// clientOf is the name the client gave at initialize.
func clientOf(c *toolkit.Call) string {
	if ss := c.Session(); ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			return p.ClientInfo.Name
		}
	}
	return ""
}

// shellFor returns the shell a call runs in: the one of the handle it
// names, else a new handle's where the call has no lasting session, else
// its MCP session's. handle is the handle used ("" for the session's), and
// release must be called when the command is done.
func shellFor(c *toolkit.Call, roots []string, handle string) (sess *shell.Session, used string, release func(), err error) {
	if handle == "" && !c.Sessionless() {
		sess, err = shellSession(c, roots)
		return sess, "", func() {}, err
	}
	if handle == "" {
		if handle, err = c.Sessions.MintHandle(); err != nil {
			return nil, "", nil, err
		}
	}
	sess, release, err = shellSlot.GetByHandle(c.Sessions, handle, func() (*shell.Session, error) { return newShell(c, roots) })
	if err != nil {
		return nil, "", nil, err
	}
	return sess, handle, release, nil
}

// handleNote ends an answer given under a handle (fs_bash, fs_watch).
func handleNote(handle string) string {
	return "[session: " + handle + " — pass it back as session to continue in it]"
}

// shellSession returns the MCP session's shell, starting it on first use in the
// first of roots. Its processes are killed when the MCP session ends.
func shellSession(c *toolkit.Call, roots []string) (*shell.Session, error) {
	return shellSlot.Get(c.Sessions, c.Session(), func() (*shell.Session, error) { return newShell(c, roots) })
}

// newShell starts a shell in the first of roots. Its output is cut in the
// middle to fit the answer budget of the call that starts it (the
// session's client; a handle passed to another client still gets the
// server's last guard).
func newShell(c *toolkit.Call, roots []string) (*shell.Session, error) {
	limit := c.Output.CommandOutput(shell.DefaultMaxOutput)
	return shell.NewSession(shell.Options{Roots: roots, Mode: shell.Mode(c.Shell), MaxOutput: limit})
}
