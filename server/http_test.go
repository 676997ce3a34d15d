package server_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/profile"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/shell"
	"github.com/fsmcp/fsmcp/tools"
)

// TestIdleHTTPSessionIsClosed: a session that sends nothing for
// SessionIdle is closed, so an abandoned client cannot pin a shell and
// watchers for the life of the server.
func TestIdleHTTPSessionIsClosed(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	defer sb.Close()
	log := slog.New(slog.DiscardHandler)
	srv, err := server.New(server.Config{Name: "fsmcp", Version: "test", Shell: shell.ModeOff, Profiles: []*profile.Table{tools.Table()},
		Limits: profile.Limits{MaxFileSize: 1 << 20, MaxOutput: 10000, Timeout: 10 * time.Second, MaxResults: 100}}, sb, log)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler(server.HTTPOptions{Log: log, SessionIdle: 300 * time.Millisecond}))
	defer hs.Close()

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"file_path": filepath.Join(root, "a.txt")}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_read", Arguments: args}); err != nil || res.IsError {
		t.Fatalf("first call: %v %v", err, res)
	}
	// Active use keeps the session alive past the idle time.
	for range 4 {
		time.Sleep(150 * time.Millisecond)
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_read", Arguments: args}); err != nil {
			t.Fatalf("a session in use was closed: %v", err)
		}
	}
	time.Sleep(time.Second)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_read", Arguments: args}); err == nil {
		t.Fatal("a session idle for over SessionIdle still answered")
	}
}
