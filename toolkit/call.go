package toolkit

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// ErrNoRoots refuses a call when fsmcp was started without a directory and
// the client gave none either (SPEC §2: fail closed, never the current
// directory): it says how to give one.
var ErrNoRoots = fault.New(fault.Outside, "no allowed directories: start fsmcp with a directory (fsmcp /path/to/project), or send MCP roots or _meta.allowed_dirs")

// Call is what a handler gets besides its typed input.
type Call struct {
	*Env
	// Sandbox is the sandbox in force for this call: the server's, the
	// client's roots, or the one _meta.allowed_dirs asked for.
	Sandbox *sandbox.Sandbox
	// Base is the session's sandbox, which outlives the call (Sandbox,
	// when narrowed, is closed when the call ends).
	Base *sandbox.Sandbox
	Req  *mcp.CallToolRequest
	// Paths is the path rule of the table the tool belongs to.
	Paths PathRule
	// Output is the most this call's answer may hold, note included:
	// --max-output, or the calling client's own smaller limit
	// (Limits.BudgetFor). A handler that cuts its own answer cuts it to
	// this, never to Limits.MaxOutput; the server cuts what is still over.
	Output  AnswerBudget
	extra   ExtraArgs // the table's policy for unknown arguments
	ignored []string  // arguments dropped under ReportExtra
}

// Progress sends a progress notification when the client asked for them
// (it sent a progress token); otherwise it does nothing.
func (c *Call) Progress(ctx context.Context, done, total float64, msg string) {
	if c.Req == nil {
		return
	}
	tok := c.Req.Params.GetProgressToken()
	if tok == nil || c.Req.Session == nil {
		return
	}
	c.Req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: tok, Progress: done, Total: total, Message: msg,
	})
}

// Session returns the MCP session the call arrived on (nil in tests that
// call a handler directly).
func (c *Call) Session() *mcp.ServerSession {
	if c.Req == nil {
		return nil
	}
	return c.Req.Session
}

// Sessionless reports whether the call came without a lasting session:
// over HTTP on the 2026-07-28 protocol every request is served on a
// session of its own, ended with the answer, so state that must outlive
// the call hangs on a handle instead (Sessions.MintHandle). Over stdio
// the one connection is the session, whatever the protocol. (A stateful
// HTTP session never carries a 2026-07-28 header: the SDK refuses it.)
func (c *Call) Sessionless() bool {
	if c.Req == nil || c.Req.Extra == nil || c.Req.Extra.Header == nil {
		return false
	}
	h := c.Req.Extra.Header
	return h.Get("Mcp-Session-Id") == "" && h.Get("Mcp-Protocol-Version") >= StatelessEra
}

// StatelessEra is the first protocol version without sessions.
const StatelessEra = "2026-07-28"

// Roots are the real paths of the call's roots; ErrNoRoots when there are
// none.
func (c *Call) Roots() ([]string, error) {
	roots := c.Sandbox.Roots()
	if len(roots) == 0 {
		return nil, ErrNoRoots
	}
	return roots, nil
}

// SearchRoots returns the call's roots and their directories, open
// through the roots' handles, in the same order, for a search query
// (backend.GrepQuery.Roots and RootDirs): the backends open a root, and
// build rg's Landlock rules, from these, never by name again, so a root
// narrowed by _meta.allowed_dirs and swapped for a link out cannot lead
// a search outside. Call done when the search is over.
func (c *Call) SearchRoots() (roots []string, dirs []*os.File, done func(), err error) {
	d, err := c.Sandbox.OpenDirs()
	if err != nil {
		return nil, nil, nil, err
	}
	return c.Sandbox.Roots(), d.Files(), func() { d.Close() }, nil
}

// ProgressFunc forwards a backend's file count as progress notifications
// (only sent when the client asked for progress).
func (c *Call) ProgressFunc(ctx context.Context) func(int64) {
	if c.Req == nil || c.Req.Params.GetProgressToken() == nil {
		return nil
	}
	return func(n int64) { c.Progress(ctx, float64(n), 0, fmt.Sprintf("%d files searched", n)) }
}

// CallFor is a Call outside tools/call, for a direct method: the session's
// sandbox (the client's roots when they apply) and the table's path rule.
// It has no request, so Progress does nothing.
func (e *Env) CallFor(ctx context.Context, ss *mcp.ServerSession, paths PathRule) (*Call, error) {
	sb, err := e.SessionSandbox(ctx, ss)
	if err != nil {
		return nil, err
	}
	return &Call{Env: e, Sandbox: sb, Paths: paths}, nil
}
