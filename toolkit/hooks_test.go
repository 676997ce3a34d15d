package toolkit_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend/stack"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

// connect serves tables on a sandbox of one temp dir and returns a client.
func connect(t *testing.T, tables ...*toolkit.Table) *mcp.ClientSession {
	t.Helper()
	sb, _ := sandbox.New([]string{t.TempDir()})
	t.Cleanup(func() { sb.Close() })
	search, err := stack.New(stack.Options{Roots: sb.Roots()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(search.Close)
	srv, err := server.New(server.Config{Name: "t", Profiles: tables, Search: search.Stack}, sb, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.MCP.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(res *mcp.CallToolResult) string { return res.Content[0].(*mcp.TextContent).Text }

// IgnoreExtra drops arguments the schema does not name (and advertises no
// additionalProperties: false); RefuseExtra answers them with -32602.
func TestExtraArgs(t *testing.T) {
	ctx := context.Background()
	lax := connect(t, &toolkit.Table{
		Name:  "lax",
		Tools: []toolkit.Tool{echo("say")},
		Arguments: toolkit.Arguments{
			ExtraArgs: toolkit.IgnoreExtra,
		},
	})
	res, err := lax.CallTool(ctx, &mcp.CallToolParams{Name: "say", Arguments: map[string]any{"text": "hi", "context": 3}})
	if err != nil || res.IsError || text(res) != "hi" {
		t.Fatalf("ignored extra: %v %v", res, err)
	}
	tools, err := lax.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := tools.Tools[0].InputSchema.(map[string]any); raw["additionalProperties"] != nil {
		t.Errorf("lenient schema still says additionalProperties: %v", raw)
	}
	strict := connect(t, &toolkit.Table{Name: "strict", Tools: []toolkit.Tool{echo("say")}})
	_, err = strict.CallTool(ctx, &mcp.CallToolParams{Name: "say", Arguments: map[string]any{"text": "hi", "context": 3}})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("refused extra: %v", err)
	}
}

// UnknownTool answers a call to a tool no table serves: a plain error as
// an isError result, a *jsonrpc.Error with its code.
func TestUnknownTool(t *testing.T) {
	ctx := context.Background()
	soft := connect(t, &toolkit.Table{
		Name:  "soft",
		Tools: []toolkit.Tool{echo("say")},
		Wording: toolkit.Wording{
			UnknownTool: func(name string) error { return errors.New("unknown tool: " + name) },
		},
	})
	res, err := soft.CallTool(ctx, &mcp.CallToolParams{Name: "nope"})
	if err != nil || !res.IsError || text(res) != "unknown tool: nope" {
		t.Fatalf("soft: %v %v", res, err)
	}
	if res, err := soft.CallTool(ctx, &mcp.CallToolParams{Name: "say", Arguments: map[string]any{"text": "x"}}); err != nil || text(res) != "x" {
		t.Fatalf("known tool after hook: %v %v", res, err)
	}
	hard := connect(t, &toolkit.Table{
		Name:  "hard",
		Tools: []toolkit.Tool{echo("say")},
		Wording: toolkit.Wording{
			UnknownTool: func(name string) error { return &jsonrpc.Error{Code: -32601, Message: "Unknown tool: " + name} },
		},
	})
	_, err = hard.CallTool(ctx, &mcp.CallToolParams{Name: "nope"})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != -32601 || !strings.Contains(rpc.Message, "Unknown tool: nope") {
		t.Errorf("hard: %v", err)
	}
}
