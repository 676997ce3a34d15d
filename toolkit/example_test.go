package toolkit_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend/stack"
	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

type sizeIn struct {
	Path string `json:"path" jsonschema:"file to measure, relative to the project root"`
}

// A one-tool profile: typed input, a core call, its own output and its own
// error codes.
func exampleTable() *toolkit.Table {
	return &toolkit.Table{
		Name: "example",
		Tools: []toolkit.Tool{toolkit.Bind(&mcp.Tool{Name: "size", Description: "Size of a file in bytes.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(ctx context.Context, c *toolkit.Call, in sizeIn) (*mcp.CallToolResult, error) {
				p, err := c.Resolve(in.Path)
				if err != nil {
					return nil, err
				}
				st, err := files.Stat(p)
				if err != nil {
					return nil, err
				}
				return toolkit.Text(fmt.Sprintf("%d bytes", st.Size)), nil
			})},
		Arguments: toolkit.Arguments{
			Paths: toolkit.RelativeToRoot,
		},
		Wording: toolkit.Wording{
			Errors: func(err error) error {
				if fault.KindOf(err) == fault.NotFound {
					return &jsonrpc.Error{Code: 1002, Message: "no such file"}
				}
				return err
			},
		},
	}
}

func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	sb, _ := sandbox.New([]string{dir})
	defer sb.Close()
	// The search stack, built as main builds it (rg if on PATH, else the
	// native scanner; no index).
	search, err := stack.New(stack.Options{Roots: sb.Roots()})
	if err != nil {
		panic(err)
	}
	defer search.Close()
	srv, err := server.New(server.Config{Name: "example", Profiles: []*toolkit.Table{exampleTable()}, Search: search.Stack}, sb, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.MCP.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "size", Arguments: map[string]any{"path": "a.txt"}})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "size", Arguments: map[string]any{"path": "nope.txt"}})
	fmt.Println(err)
	// Output:
	// 6 bytes
	// calling "tools/call": no such file
}
