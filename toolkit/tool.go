package toolkit

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one MCP tool of a profile: its definition and how to serve it.
type Tool struct {
	Def *mcp.Tool
	// OwnTimeout is set by tools that bound their own run time (fs_bash);
	// the others run under Limits.Timeout.
	OwnTimeout bool
	// NeedsShell is set by tools that run commands; they are left out when
	// the shell is off.
	NeedsShell bool
	// Search is set (Searching) by tools that search the tree by other
	// means than Call.Searcher, whose searches are admitted there: the
	// whole call waits for a search slot (Env.Admission) as a grep does.
	Search bool
	// Hints name, for an argument the schema does not have, the parameter
	// that does what it meant (include: glob), for ReportExtra's line.
	Hints  map[string]string
	params []string // the schema's parameters, in its order
	handle func(ctx context.Context, c *Call, req *mcp.CallToolRequest) (*mcp.CallToolResult, error)
}

// Searching marks t as a search that walks the tree itself (Tool.Search):
// a profile says what its tool is, the runtime admits it, as fs_grep is
// admitted, under the one --max-searches bound and its fair queue.
func Searching(t Tool) Tool {
	t.Search = true
	return t
}

// ReadOnly reports whether the tool never changes anything; --read-only
// keeps exactly these.
func (t Tool) ReadOnly() bool { return t.Def.Annotations != nil && t.Def.Annotations.ReadOnlyHint }

// Handler is the shape of every typed tool handler: it maps the arguments
// to a core operation, runs it, and formats the answer. A plain error
// becomes an isError result and a *jsonrpc.Error a protocol error, both
// after the table's ErrorMap.
type Handler[In any] func(ctx context.Context, c *Call, in In) (*mcp.CallToolResult, error)

// Bind builds a Tool whose input schema is inferred from In (field
// descriptions from `jsonschema` tags, optional fields marked omitempty,
// and what a seed's schema adds for clients to read from `advertise` tags:
// see advertise). Arguments are validated against it before the handler
// runs; a missing or mistyped parameter is an *ArgError (which the table's
// Errors sees and may word its own way). def.Annotations must be set.
//
// The one hook beyond tags: a def that comes with its InputSchema (a seed
// whose schema is data, reference's tools.json) is advertised as it is,
// while In's inferred schema still validates.
func Bind[In any](def *mcp.Tool, h Handler[In]) Tool {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", def.Name, err))
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", def.Name, err))
	}
	if def.InputSchema == nil {
		advertised := oneType(schema)
		advertise(reflect.TypeFor[In](), advertised)
		def.InputSchema = advertised
	}
	if def.Annotations == nil {
		panic(fmt.Sprintf("tool %s: annotations must be set explicitly", def.Name))
	}
	return Tool{Def: def, params: schema.PropertyOrder, handle: func(ctx context.Context, c *Call, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, dropped, err := decodeArgs[In](resolved, req.Params.Arguments, c.extra)
		c.ignored = dropped
		if err != nil {
			return nil, err
		}
		return h(ctx, c, in)
	}}
}

// ignoredLine is ReportExtra's line for the dropped arguments: those a
// hint knows first, each with the parameter to use, then the rest and the
// parameters the tool has; at most maxIgnoredNamed names in all.
func (t Tool) ignoredLine(names []string) string {
	var parts, unknown []string
	for _, n := range names {
		if use, ok := t.Hints[n]; ok && len(parts) < maxIgnoredNamed {
			parts = append(parts, fmt.Sprintf("%s (use %s)", n, use))
		} else {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		room := max(maxIgnoredNamed-len(parts), 1)
		shown := unknown[:min(room, len(unknown))]
		for i, n := range shown {
			if len(n) > 64 {
				shown[i] = n[:64] + "..."
			}
		}
		list := strings.Join(shown, ", ")
		if len(unknown) > len(shown) {
			list += fmt.Sprintf(" and %d more", len(unknown)-len(shown))
		}
		parts = append(parts, fmt.Sprintf("%s (%s takes %s)", list, t.Def.Name, strings.Join(t.params, ", ")))
	}
	return "ignored: " + strings.Join(parts, ", ")
}

// maxIgnoredNamed bounds the names in the ignored line, so it stays one
// short line whatever a client sends.
const maxIgnoredNamed = 5

// appendLine ends res's last text content with line, after a blank line;
// a result without text gets a text content of its own.
func appendLine(res *mcp.CallToolResult, line string) {
	for i := len(res.Content) - 1; i >= 0; i-- {
		if tc, ok := res.Content[i].(*mcp.TextContent); ok {
			if tc.Text != "" {
				tc.Text += "\n\n"
			}
			tc.Text += line
			return
		}
	}
	res.Content = append(res.Content, &mcp.TextContent{Text: line})
}

// decodeArgs validates raw arguments against the schema, then decodes them.
// Under IgnoreExtra and ReportExtra, top-level arguments the schema does
// not name are dropped first; under ReportExtra their names come back,
// sorted.
func decodeArgs[In any](schema *jsonschema.Resolved, raw json.RawMessage, extra ExtraArgs) (In, []string, error) {
	in, dropped, err := decodeKnown[In](schema, raw, extra)
	if extra != ReportExtra {
		dropped = nil
	}
	return in, dropped, err
}

func decodeKnown[In any](schema *jsonschema.Resolved, raw json.RawMessage, extra ExtraArgs) (In, []string, error) {
	var in In
	var dropped []string
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return in, dropped, argError("arguments must be a JSON object: "+err.Error(), err.Error())
	}
	if extra.drops() {
		props := schema.Schema().Properties
		for k := range generic {
			if _, ok := props[k]; !ok {
				delete(generic, k)
				dropped = append(dropped, k)
			}
		}
		sort.Strings(dropped)
		var err error
		if raw, err = json.Marshal(generic); err != nil {
			return in, dropped, argError("invalid arguments: "+err.Error(), err.Error())
		}
	}
	if err := schema.Validate(generic); err != nil {
		return in, dropped, classify(schema.Schema(), generic, strings.TrimPrefix(err.Error(), "validating root: "))
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, dropped, argError("invalid arguments: "+err.Error(), err.Error())
	}
	return in, dropped, nil
}

// InvalidParams is a JSON-RPC -32602 error.
func InvalidParams(format string, args ...any) error {
	return RPCError(jsonrpc.CodeInvalidParams, format, args...)
}

// Text is a result of one text content.
func Text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// ErrorText is an isError result saying err.
func ErrorText(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}
