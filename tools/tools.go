// Package tools adapts fsmcp's core operations to MCP tools: one file per
// tool or tool family, each with a constructor returning a Tool. All lists
// every tool; start reading there.
//
// Error contract: a handler's plain error becomes an isError result whose
// text is one sentence the user can act on (not found, outside the roots,
// not unique). A *jsonrpc.Error becomes a protocol error with its code; the
// wrapper uses it for malformed calls (-32602).
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/shell"
)

// Limits bound what one call may read, run for, or return.
type Limits struct {
	MaxFileSize int64         // bytes a whole-file read or edit may load
	MaxOutput   int           // characters in one tool result
	Timeout     time.Duration // per call; fs_bash has its own
	MaxResults  int           // entries from a search or listing
}

// Deps are what every tool handler may use.
type Deps struct {
	Sandbox   *sandbox.Sandbox
	Limits    Limits
	TrustMeta bool // _meta.allowed_dirs may add roots, not only narrow them
	// ClientRoots: no DIR was given, so a client's MCP roots, when it
	// offers them, replace the default root.
	ClientRoots bool
	Log         *slog.Logger
	Sessions    *Sessions
	// Shell is fs_bash's confinement; "" or shell.ModeOff leaves fs_bash out.
	Shell shell.Mode
	// Searcher serves fs_grep and fs_glob: backend.Select(--search-backend,
	// fallback.New()). Nil picks "auto" (rg if on PATH, else native) at
	// first use.
	Searcher backend.Searcher
}

// Tool is one MCP tool: its definition and how to serve it.
type Tool struct {
	Def *mcp.Tool
	// OwnTimeout is set by tools that bound their own run time (fs_bash).
	OwnTimeout bool
	// NeedsShell is set by tools that run commands; they are left out when
	// the shell is off.
	NeedsShell bool
	handle     func(ctx context.Context, d *Deps, req *mcp.CallToolRequest) (*mcp.CallToolResult, error)
}

// ReadOnly reports whether the tool never changes anything; --read-only
// keeps exactly these.
func (t Tool) ReadOnly() bool { return t.Def.Annotations != nil && t.Def.Annotations.ReadOnlyHint }

// All returns every fsmcp tool, in the order tools/list shows them.
func All() []Tool {
	return []Tool{
		Read(),    // fs_read, read.go
		Write(),   // fs_write, write.go
		Edit(),    // fs_edit, edit.go
		Glob(),    // fs_glob, glob.go
		Grep(),    // fs_grep, grep.go
		List(),    // fs_list, list.go
		Stat(),    // fs_stat, stat.go
		Mkdir(),   // fs_mkdir, manage.go
		Move(),    // fs_move, manage.go
		Copy(),    // fs_copy, manage.go
		Delete(),  // fs_delete, manage.go
		Catalog(), // fs_catalog, catalog.go
		Watch(),   // fs_watch, watch.go
		Bash(),    // fs_bash, bash.go
	}
}

// Register adds tools to a server. With readOnly, tools that write, move,
// delete or run commands are left out, so they are neither listed nor
// callable.
func Register(s *mcp.Server, d *Deps, tools []Tool, readOnly bool) {
	for _, t := range tools {
		if readOnly && !t.ReadOnly() {
			continue
		}
		if t.NeedsShell && (d.Shell == "" || d.Shell == shell.ModeOff) {
			continue
		}
		s.AddTool(t.Def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if !t.OwnTimeout && d.Limits.Timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, d.Limits.Timeout)
				defer cancel()
			}
			return t.handle(ctx, d, req)
		})
	}
}

// Call is what a handler gets besides its typed input.
type Call struct {
	*Deps
	// Sandbox is the sandbox in force for this call: the server's, or the
	// one _meta.allowed_dirs asked for.
	Sandbox *sandbox.Sandbox
	Req     *mcp.CallToolRequest
}

// Progress sends a progress notification when the client asked for them
// (it sent a progress token); otherwise it does nothing.
func (c *Call) Progress(ctx context.Context, done, total float64, msg string) {
	tok := c.Req.Params.GetProgressToken()
	if tok == nil || c.Req.Session == nil {
		return
	}
	c.Req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: tok, Progress: done, Total: total, Message: msg,
	})
}

// Session returns the MCP session the call arrived on.
func (c *Call) Session() *mcp.ServerSession { return c.Req.Session }

// handlerFor is the shape of every typed tool handler.
type handlerFor[In any] func(ctx context.Context, c *Call, in In) (*mcp.CallToolResult, error)

// newTool builds a Tool whose input schema is inferred from In (field
// descriptions from `jsonschema` tags, optional fields marked omitempty).
// Arguments are validated against it before the handler runs; a missing or
// mistyped parameter is a JSON-RPC -32602 error.
func newTool[In any](def *mcp.Tool, h handlerFor[In]) Tool {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", def.Name, err))
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", def.Name, err))
	}
	def.InputSchema = schema
	if def.Annotations == nil {
		panic(fmt.Sprintf("tool %s: annotations must be set explicitly", def.Name))
	}
	return Tool{Def: def, handle: func(ctx context.Context, d *Deps, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, err := decodeArgs[In](resolved, req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		base, err := d.baseSandbox(ctx, req.Session)
		if err != nil {
			return errorResult(err), nil
		}
		sb, err := d.sandboxFor(base, req)
		if err != nil {
			return errorResult(err), nil
		}
		if sb != base {
			defer sb.Close()
		}
		res, err := h(ctx, &Call{Deps: d, Sandbox: sb, Req: req}, in)
		if err != nil {
			if _, ok := err.(*jsonrpc.Error); ok {
				return nil, err
			}
			return errorResult(err), nil
		}
		capResult(res, d.Limits.MaxOutput)
		return res, nil
	}}
}

// decodeArgs validates raw arguments against the schema, then decodes them.
func decodeArgs[In any](schema *jsonschema.Resolved, raw json.RawMessage) (In, error) {
	var in In
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return in, invalidParams("arguments must be a JSON object: %v", err)
	}
	if err := schema.Validate(generic); err != nil {
		return in, invalidParams("invalid arguments: %s", strings.TrimPrefix(err.Error(), "validating root: "))
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, invalidParams("invalid arguments: %v", err)
	}
	return in, nil
}

func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// metaAllowedDirs is the _meta key through which a host (fsMCP's Relay
// convention) scopes one call to some directories.
const metaAllowedDirs = "allowed_dirs"

// sandboxFor returns the sandbox in force for a call: base, narrowed (or,
// with --trust-meta, extended) by _meta.allowed_dirs when the call has it.
func (d *Deps) sandboxFor(base *sandbox.Sandbox, req *mcp.CallToolRequest) (*sandbox.Sandbox, error) {
	raw, ok := req.Params.Meta[metaAllowedDirs]
	if !ok || raw == nil {
		return base, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("_meta.allowed_dirs must be an array of absolute paths")
	}
	dirs := make([]string, 0, len(list))
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("_meta.allowed_dirs must be an array of absolute paths")
		}
		dirs = append(dirs, s)
	}
	if d.TrustMeta {
		return base.Extend(dirs)
	}
	return base.Narrow(dirs)
}

// ContextSchema is what fsMCP advertises in serverInfo.contextSchema so a
// host can render a per-token directory picker.
var ContextSchema = map[string]any{
	metaAllowedDirs: map[string]any{
		"type":        "array",
		"items":       map[string]any{"type": "string"},
		"description": "Directories this token may access (absolute paths). They narrow the server's allowed directories.",
		"ui":          "directory-list",
	},
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func errorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

// boolp returns a pointer, for the optional hints of mcp.ToolAnnotations.
func boolp(b bool) *bool { return &b }

// readOnly, additive and destructive are the three kinds of annotation a
// tool can have; each sets openWorldHint false (fsmcp touches only the
// roots).
func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: boolp(false)}
}

func writes(title string, destructive, idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: boolp(destructive), IdempotentHint: idempotent, OpenWorldHint: boolp(false)}
}
