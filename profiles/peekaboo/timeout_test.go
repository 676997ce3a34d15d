package peekaboo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/queue"
	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles/peekaboo"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

// stuck is a search backend that finds nothing until the call's time
// runs out.
type stuck struct{}

func (stuck) Name() string { return "stuck" }
func (stuck) Grep(ctx context.Context, _ backend.GrepQuery, _ backend.Sink) error {
	<-ctx.Done()
	return ctx.Err()
}
func (stuck) Glob(ctx context.Context, _ backend.GlobQuery, _ func(backend.File) error) error {
	<-ctx.Done()
	return ctx.Err()
}

// A search that outlives --timeout is peekaboo's -32603 "Operation
// 'searchContent' timed out after Nms".
func TestTimeout(t *testing.T) {
	e := testenv.New(t,
		testenv.WithLimits(func(l *toolkit.Limits) { l.Timeout = 20 * time.Millisecond }),
		testenv.WithServer(func(c *server.Config) {
			c.Profiles = []*toolkit.Table{peekaboo.Table()}
			c.Search = queue.New(stuck{}, 0, 0)
		}))
	_, err := e.CS.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_content", Arguments: map[string]any{"query": "x"}})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != -32603 || rpc.Message != "Operation 'searchContent' timed out after 20ms" {
		t.Errorf("got %v", err)
	}
}
