package peekaboo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles/peekaboo"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

// SPEC §4 through every peekaboo surface: resources/read refuses the
// prefix sibling, "..", NUL, links out (file, directory, dangling) with
// -32600; resources/list, search_path and search_content never show a
// name or a byte from outside the root.
func TestRefusals(t *testing.T) {
	t.Setenv("PEEKABOO_RECURSIVE", "")
	t.Setenv("PEEKABOO_MAX_DEPTH", "")
	e := testenv.New(t, testenv.WithServer(func(c *server.Config) { c.Profiles = []*toolkit.Table{peekaboo.Table()} }))
	ctx := context.Background()
	for _, uri := range []string{
		"file://" + e.Path("root_evil/x"), "file://../root_evil/x", "file://sub/../../root_evil/x",
		"file://sub/%2E%2E/%2e%2e/outside/secret", "file://a.txt%00", "file://filelink", "file://dirlink/secret",
		"file://" + e.Root + "/dirlink/secret", "file://dangling", "file://" + e.Path("outside/secret"),
	} {
		_, err := e.CS.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != -32600 || rpc.Message != "Access denied: Path traversal attempt detected" {
			t.Errorf("read %s: %v, want the -32600 traversal refusal", uri, err)
		}
	}
	if e.Exists("outside/created") {
		t.Error("reading the dangling link created its target")
	}
	list, err := e.CS.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Resources {
		if strings.Contains(r.URI, "secret") || strings.Contains(r.URI, "root_evil") {
			t.Errorf("resources/list shows %s", r.URI)
		}
	}
	for _, args := range []map[string]any{{"pattern": "**/*"}, {"pattern": "*secret*"}, {"pattern": "**/x"}} {
		if out := e.OK("search_path", args); strings.Contains(out, "secret") || strings.Contains(out, "root_evil") {
			t.Errorf("search_path %v: %s", args, out)
		}
	}
	for _, q := range []string{"secret", "evil"} {
		if out := e.OK("search_content", map[string]any{"query": q}); out != "No matches found" {
			t.Errorf("search_content %s: %s", q, out)
		}
	}
	// Inside the root, both URI forms read.
	for _, uri := range []string{"file://a.txt", "file://" + e.Root + "/a.txt", "file://inlink"} {
		res, err := e.CS.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || res.Contents[0].Text != "hello\n" {
			t.Errorf("read %s: %v", uri, err)
		}
	}
}
