package toolkit_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/toolkit"
)

type argsIn struct {
	Path  string    `json:"path"`
	Mode  string    `json:"mode"`
	Deep  *bool     `json:"deep,omitempty"`
	Opts  *optsIn   `json:"opts,omitempty"`
	Items []itemsIn `json:"items,omitempty"`
}

type optsIn struct {
	Depth int    `json:"depth"`
	Name  string `json:"name"`
}

type itemsIn struct {
	N int `json:"n"`
}

// A table's Errors sees Bind's refusals as a typed ArgError (field,
// reason), so it words them its original's way without parsing the
// validator's sentence; a table that does not map them still answers the
// validator's -32602.
func TestArgErrorIsTyped(t *testing.T) {
	var seen *toolkit.ArgError
	tool := toolkit.Bind(&mcp.Tool{Name: "t", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, c *toolkit.Call, in argsIn) (*mcp.CallToolResult, error) {
			return toolkit.Text("ok"), nil
		})
	cs := connect(t, &toolkit.Table{
		Name:  "typed",
		Tools: []toolkit.Tool{tool},
		Wording: toolkit.Wording{
			Errors: func(err error) error {
				if !errors.As(err, &seen) {
					seen = nil
				}
				return err
			},
		},
	})
	for _, c := range []struct {
		args    map[string]any
		reason  toolkit.ArgReason
		field   string
		missing []string
		got     string
		want    []string
	}{
		{map[string]any{}, toolkit.Missing, "", []string{"path", "mode"}, "", nil},
		{map[string]any{"path": "a"}, toolkit.Missing, "", []string{"mode"}, "", nil},
		{map[string]any{"path": 3, "mode": "x"}, toolkit.WrongType, "path", nil, "integer", []string{"string"}},
		{map[string]any{"path": "a", "mode": "x", "deep": "yes"}, toolkit.WrongType, "deep", nil, "string", []string{"boolean"}},
		{map[string]any{"path": "a", "mode": "x", "opts": map[string]any{"depth": "1", "name": "n"}}, toolkit.WrongType, "opts.depth", nil, "string", []string{"integer"}},
		{map[string]any{"path": "a", "mode": "x", "opts": map[string]any{"depth": 1}}, toolkit.Missing, "opts", []string{"name"}, "", nil},
		{map[string]any{"path": "a", "mode": "x", "items": []any{map[string]any{"n": "1"}}}, toolkit.Invalid, "", nil, "", nil},
	} {
		t.Run(fmt.Sprint(c.args), func(t *testing.T) {
			seen = nil
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: c.args})
			var rpc *jsonrpc.Error
			if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("answer %v, want -32602", err)
			}
			if seen == nil {
				t.Fatalf("Errors saw no ArgError")
			}
			if seen.Reason != c.reason || seen.Field != c.field || !slices.Equal(seen.Missing, c.missing) || seen.Got != c.got || !slices.Equal(seen.Want, c.want) {
				t.Errorf("ArgError %+v", *seen)
			}
			if rpc.Message != seen.Error() || rpc.Message != "invalid arguments: "+seen.Detail() {
				t.Errorf("wire message %q, error %q, detail %q", rpc.Message, seen.Error(), seen.Detail())
			}
		})
	}
}
