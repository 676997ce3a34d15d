package profile

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Check reports why tables cannot be served together: two define the same
// tool or method name (the error names both), or they speak different
// wires.
func Check(tables []*Table) error {
	owner := map[string]string{}
	for _, t := range tables {
		names := make([]string, 0, len(t.Tools)+len(t.Methods))
		for _, tool := range t.Tools {
			names = append(names, tool.Def.Name)
		}
		for _, m := range t.Methods {
			names = append(names, m.Name)
		}
		for _, n := range names {
			if prev, ok := owner[n]; ok {
				if prev == t.Name {
					return fmt.Errorf("profile %s defines %q twice", t.Name, n)
				}
				return fmt.Errorf("profiles %s and %s both define %q; serve them separately", prev, t.Name, n)
			}
			owner[n] = t.Name
		}
	}
	if _, err := WireOf(tables); err != nil {
		return err
	}
	return nil
}

// WireOf is the wire the tables speak; they must agree.
func WireOf(tables []*Table) (Wire, error) {
	if len(tables) == 0 {
		return Standard, nil
	}
	w := tables[0].Wire
	for _, t := range tables[1:] {
		if t.Wire != w {
			return w, fmt.Errorf("profiles %s and %s speak different wires; serve them separately", tables[0].Name, t.Name)
		}
	}
	return w, nil
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

// Register serves the union of tables on s: their tools (with readOnly,
// only those that change nothing; with the shell off, none that runs
// commands), their direct methods, their initialize shapes, and the
// per-session notifier the runtime needs.
func Register(s *mcp.Server, env *Env, tables []*Table, readOnly bool) error {
	if err := Check(tables); err != nil {
		return err
	}
	var shapes []func(mcp.Result) mcp.Result
	for _, tab := range tables {
		for _, t := range tab.Tools {
			if readOnly && !t.ReadOnly() || t.NeedsShell && env.ShellOff() {
				continue
			}
			s.AddTool(t.Def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return t.serve(ctx, env, tab, req)
			})
		}
		for _, m := range tab.Methods {
			if err := m.register(s, env, tab); err != nil {
				return fmt.Errorf("profile %s: method %s: %v", tab.Name, m.Name, err)
			}
		}
		if tab.Initialize != nil {
			shapes = append(shapes, tab.Initialize)
		}
	}
	if len(shapes) > 0 {
		s.AddReceivingMiddleware(reshapeInitialize(shapes))
	}
	s.AddSendingMiddleware(SessionNotifier)
	return nil
}

// reshapeInitialize applies the tables' Initialize shapes, in order, to the
// initialize and server/discover answers.
func reshapeInitialize(shapes []func(mcp.Result) mcp.Result) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			switch res.(type) {
			case *mcp.InitializeResult, *mcp.DiscoverResult:
				for _, shape := range shapes {
					res = shape(res)
				}
			}
			return res, nil
		}
	}
}
