package toolkit

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/wire"
)

// Check reports why tables cannot be served together: two define the same
// tool name, or the same method name (the error names both), or one loads
// up front a tool it does not define (Upfront: a misspelt name). Wires never
// conflict: the plain front serves standard clients too (WireOf). Tools
// and methods are apart: the catalog serves catalog/create as both.
func Check(tables []*Table) error {
	owner := map[string]string{}
	for _, t := range tables {
		names := make([]string, 0, len(t.Tools)+len(t.Methods))
		for _, tool := range t.Tools {
			names = append(names, "tool "+tool.Def.Name)
		}
		for _, m := range t.Methods {
			names = append(names, "method "+m.Name)
		}
		tools := map[string]bool{}
		for _, tool := range t.Tools {
			tools[tool.Def.Name] = true
		}
		for _, n := range t.Upfront {
			if !tools[n] {
				return fmt.Errorf("profile %s loads %q up front but has no such tool", t.Name, n)
			}
		}
		for _, key := range names {
			_, n, _ := strings.Cut(key, " ")
			if prev, ok := owner[key]; ok {
				if prev == t.Name {
					return fmt.Errorf("profile %s defines %q twice", t.Name, n)
				}
				return fmt.Errorf("profiles %s and %s both define %q; serve them separately", prev, t.Name, n)
			}
			owner[key] = t.Name
		}
	}
	return nil
}

// WireOf is the wire the tables speak: Plain when any table needs it (the
// plain front also serves standard MCP clients as before), else Standard.
func WireOf(tables []*Table) Wire {
	w := Standard
	for _, t := range tables {
		if t.Wire == Plain {
			w = Plain
		}
	}
	return w
}

// Resources is the resource shape in force: the first table's that has
// one (nil: the standard shape).
func Resources(tables []*Table) *ResourceShape {
	for _, t := range tables {
		if t.Resources != nil {
			return t.Resources
		}
	}
	return nil
}

// Register serves the union of tables on s: their tools (with
// env.ReadOnly, only those that change nothing; with the shell off, none
// that runs commands), their direct methods (with env.ReadOnly, only those
// marked ReadOnly), their initialize shapes, and the per-session notifier
// the runtime needs. It is where the tables are checked to go together
// (Check), once.
func Register(s *mcp.Server, env *Env, tables []*Table) error {
	readOnly := env.ReadOnly
	if err := Check(tables); err != nil {
		return err
	}
	var shapes []*Table
	served := map[string]bool{}
	var unknown func(string) error
	for _, tab := range tables {
		if unknown == nil {
			unknown = tab.UnknownTool
		}
		for _, t := range tab.Tools {
			if !env.Serves(t) {
				continue
			}
			served[t.Def.Name] = true
			def := t.Def
			if tab.ExtraArgs.drops() {
				def = lenient(def)
			}
			meta := map[string]any{}
			if tab.DeclareResultSize && env.Limits.MaxOutput > 0 {
				meta[MetaMaxResultSize] = min(env.Limits.MaxOutput, maxDeclaredResultSize)
			}
			if slices.Contains(tab.Upfront, t.Def.Name) {
				meta[MetaAlwaysLoad] = true
			} else if hint := tab.SearchHints[t.Def.Name]; hint != "" {
				meta[MetaSearchHint] = hint
			}
			def = withMeta(def, meta)
			s.AddTool(def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return t.serve(ctx, env, tab, req)
			})
		}
		for _, m := range tab.Methods {
			if refusedReadOnly(readOnly, m.ReadOnly) {
				continue
			}
			if err := m.register(s, env, tab); err != nil {
				return fmt.Errorf("profile %s: method %s: %v", tab.Name, m.Name, err)
			}
		}
		if tab.Initialize != nil || tab.PlainInitialize != nil {
			shapes = append(shapes, tab)
		}
	}
	if len(shapes) > 0 {
		s.AddReceivingMiddleware(reshapeInitialize(shapes))
	}
	if answers := answerShapes(tables); len(answers) > 0 {
		s.AddReceivingMiddleware(reshapeAnswers(answers))
	}
	if unknown != nil {
		s.AddReceivingMiddleware(unknownTool(served, unknown))
	}
	s.AddSendingMiddleware(SessionNotifier)
	return nil
}

// refusedReadOnly is --read-only's one rule, for tools and direct methods
// alike: an operation that may change anything is not served.
func refusedReadOnly(readOnly, opReadOnly bool) bool { return readOnly && !opReadOnly }

// Serves reports whether a table's tool t is served under env: not a
// writer under --read-only, not one that runs commands with the shell off.
func (env *Env) Serves(t Tool) bool {
	return !refusedReadOnly(env.ReadOnly, t.ReadOnly()) && !(t.NeedsShell && env.ShellOff())
}

// reshapeInitialize applies the tables' Initialize shapes, in order, to the
// initialize and server/discover answers; an initialize the plain front
// filled in params for gets PlainInitialize where a table has one.
func reshapeInitialize(tables []*Table) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			switch res.(type) {
			case *mcp.InitializeResult, *mcp.DiscoverResult:
				params, _ := req.GetParams().(*mcp.InitializeParams)
				bare := method == "initialize" && wire.Bare(params)
				for _, tab := range tables {
					switch {
					case bare && tab.PlainInitialize != nil:
						res = tab.PlainInitialize(res)
					case tab.Initialize != nil:
						res = tab.Initialize(res)
					}
				}
			}
			return markComplete(req, res), nil
		}
	}
}

// UnknownMethod is the first table's UnknownMethod (nil: none has one).
func UnknownMethod(tables []*Table) func(string) string {
	for _, t := range tables {
		if t.UnknownMethod != nil {
			return t.UnknownMethod
		}
	}
	return nil
}

// unknownTool answers a tools/call naming no served tool the table's way,
// before the SDK's own -32602.
func unknownTool(served map[string]bool, answer func(string) error) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && !served[r.Params.Name] {
				err := answer(r.Params.Name)
				if _, isRPC := err.(*jsonrpc.Error); isRPC {
					return nil, keepMessage(err)
				}
				return ErrorText(err), nil
			}
			return next(ctx, method, req)
		}
	}
}

// lenient is def with a schema that admits arguments it does not name
// (additionalProperties dropped), for tables that drop unknown arguments.
func lenient(def *mcp.Tool) *mcp.Tool {
	schema, ok := def.InputSchema.(*jsonschema.Schema)
	if !ok || schema.AdditionalProperties == nil {
		return def
	}
	d := *def
	sc := *schema
	sc.AdditionalProperties = nil
	d.InputSchema = &sc
	return &d
}

// withMeta is def with the keys of meta added to its _meta, def itself
// untouched (a Table's tools are shared); def when meta is empty.
func withMeta(def *mcp.Tool, meta map[string]any) *mcp.Tool {
	if len(meta) == 0 {
		return def
	}
	d := *def
	d.Meta = mcp.Meta{}
	maps.Copy(d.Meta, def.Meta)
	maps.Copy(d.Meta, meta)
	return &d
}

// answerShapes gathers the tables' Answers by method, in table order.
func answerShapes(tables []*Table) map[string][]func(mcp.Result) mcp.Result {
	out := map[string][]func(mcp.Result) mcp.Result{}
	for _, t := range tables {
		for method, shape := range t.Answers {
			out[method] = append(out[method], shape)
		}
	}
	return out
}

// reshapeAnswers applies the tables' Answers to successful answers.
func reshapeAnswers(shapes map[string][]func(mcp.Result) mcp.Result) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil || res == nil {
				return res, err
			}
			for _, shape := range shapes[method] {
				res = shape(res)
			}
			return markComplete(req, res), nil
		}
	}
}
