package toolkit_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/internal/test/profiletest"
	"github.com/fsmcp/fsmcp/toolkit"
)

type greetParams struct {
	mcp.ParamsBase
	Name string `json:"name"`
}

type greetResult struct {
	mcp.ResultBase
	Greeting string `json:"greeting"`
}

// A direct JSON-RPC method next to the tools, its error code on the wire,
// and an initialize shape, through the golden harness.
func TestMethodAndInitializeShape(t *testing.T) {
	tab := &toolkit.Table{
		Name:  "greeter",
		Tools: []toolkit.Tool{echo("say")},
		Methods: []toolkit.Method{toolkit.NewMethod("greeter/greet",
			func(ctx context.Context, env *toolkit.Env, ss *mcp.ServerSession, p *greetParams) (*greetResult, error) {
				if p.Name == "" {
					return nil, &jsonrpc.Error{Code: 1001, Message: "name is required"}
				}
				c, err := env.CallFor(ctx, ss, toolkit.RelativeToRoot)
				if err != nil {
					return nil, err
				}
				if _, err := c.Resolve(p.Name); err != nil {
					return nil, err // not found: mapped by Errors below
				}
				return &greetResult{Greeting: "hello " + p.Name}, nil
			})},
		Handshake: toolkit.Handshake{
			Initialize: func(res mcp.Result) mcp.Result {
				return toolkit.Reshape(res, func(m map[string]any) { m["greeter"] = true })
			},
		},
		Wording: toolkit.Wording{
			Errors: func(err error) error {
				if fault.KindOf(err) == fault.Outside {
					return &jsonrpc.Error{Code: 1002, Message: "not here: " + fault.PathOf(err)}
				}
				return err
			},
		},
	}
	profiletest.Golden(t, []*toolkit.Table{tab}, "testdata/*.txtar")
}
