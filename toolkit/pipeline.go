package toolkit

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/sandbox"
)

// stages are what every tools/call goes through, outermost first: each
// does its part on the way in, calls next for the rest of the call, and
// does the rest on the way out; the tool's handler is innermost. Adding
// a stage is adding a row here and a file beside this one.
var stages = []stage{
	{"audit", audit},              // audit.go: the call's line in the audit log
	{"release", release},          // release.go: what a large call freed goes back to the system
	{"stale results", stale},      // stale.go: a tool that may write makes kept search results stale
	{"answer budget", capAnswer},  // budget.go: the answer cut to --max-output or the client's own limit
	{"error wording", word},       // wording.go: the table's words for errors, ignored arguments said
	{"clock", clock},              // clock.go: --timeout
	{"roots and sandbox", enter},  // roots.go: the session's sandbox, the client's roots, _meta.allowed_dirs
	{"admission", admit},          // admission.go: a search waits for a slot
	{"journal step", journalStep}, // journalstep.go: one call is one entry of the change journal
	{"explanation", explain},      // wording.go: what the call tells about a handler's error
}

// stage is one step of a call's way: run does its part around next.
type stage struct {
	name string
	run  func(ctx context.Context, k *call, next func(context.Context))
}

// call is one tools/call on its way through the stages.
type call struct {
	tool Tool
	env  *Env
	tab  *Table
	req  *mcp.CallToolRequest
	// Set on the way in.
	budget   AnswerBudget
	base, sb *sandbox.Sandbox // the session's roots as this call has them; those narrowed by _meta
	c        *Call            // what the handler was given
	// The outcome, reshaped on the way out: res or a protocol error err;
	// cause is the handler's error as it returned it (for the audit).
	res        *mcp.CallToolResult
	err, cause error
	ignored    []string // arguments dropped under ReportExtra
}

// serve runs one call through the stages.
func (t Tool) serve(ctx context.Context, env *Env, tab *Table, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	k := &call{tool: t, env: env, tab: tab, req: req}
	k.through(ctx, 0)
	return k.res, k.err
}

// through runs stage i and, inside it, the rest.
func (k *call) through(ctx context.Context, i int) {
	if i == len(stages) {
		k.handle(ctx)
		return
	}
	stages[i].run(ctx, k, func(ctx context.Context) { k.through(ctx, i+1) })
}

// handle runs the tool's handler in the call's sandbox.
func (k *call) handle(ctx context.Context) {
	k.c = &Call{Env: k.env, Sandbox: k.sb, Base: k.base, Req: k.req, Paths: k.tab.Paths, Output: k.budget, extra: k.tab.ExtraArgs}
	k.res, k.err = k.tool.handle(ctx, k.c, k.req)
	k.ignored = k.c.ignored
}
