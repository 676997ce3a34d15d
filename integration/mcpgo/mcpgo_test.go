// Package mcpgo checks that a mark3labs/mcp-go client, which probes with
// server/discover before it initializes, uses fsmcp over Streamable HTTP.
package mcpgo

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/fsmcp/fsmcp/profile"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/shell"
	"github.com/fsmcp/fsmcp/tools"
)

func TestMCPGoClientOverHTTP(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello from fsmcp\n"), 0o644); err != nil {
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
	hs := httptest.NewServer(srv.Handler(server.HTTPOptions{Log: log, AuthToken: "tok"}))
	defer hs.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.NewStreamableHttpClient(hs.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok"}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{ClientInfo: mcpgo.Implementation{Name: "mcp-go-test", Version: "1"}}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if init.ProtocolVersion >= "2026-07-28" {
		t.Errorf("settled on %s, which the stateful endpoint does not serve", init.ProtocolVersion)
	}
	list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	found := false
	for _, tl := range list.Tools {
		found = found || tl.Name == "fs_read"
	}
	if !found {
		t.Fatalf("fs_read not listed among %d tools", len(list.Tools))
	}
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "fs_read", Arguments: map[string]any{"file_path": filepath.Join(root, "a.txt")}}})
	if err != nil {
		t.Fatalf("fs_read: %v", err)
	}
	text := ""
	for _, ct := range res.Content {
		if tc, ok := ct.(mcpgo.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError || !strings.Contains(text, "hello from fsmcp") {
		t.Fatalf("fs_read answered %q (isError %v)", text, res.IsError)
	}
}
