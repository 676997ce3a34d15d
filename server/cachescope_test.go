package server_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles"
	"github.com/fsmcp/fsmcp/server"
)

// TestResourcesCacheScope: resources/read says the cacheScope that
// resources/list says (a user's files: private), for every profile that
// serves resources (all of them with --resources, peekaboo always), over
// both protocols.
func TestResourcesCacheScope(t *testing.T) {
	ctx := context.Background()
	for _, name := range profiles.Names() {
		for _, legacy := range []bool{false, true} {
			t.Run(name, func(t *testing.T) {
				tables, err := profiles.Lookup(name)
				if err != nil {
					t.Fatal(err)
				}
				opts := []testenv.Option{testenv.WithResources(), testenv.WithServer(func(c *server.Config) { c.Profiles = tables })}
				if legacy {
					opts = append(opts, testenv.WithLegacyProtocol())
				}
				e := testenv.New(t, opts...)
				list, err := e.CS.ListResources(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				read, err := e.CS.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri(filepath.Join(e.Root, "a.txt"))})
				if err != nil {
					t.Fatal(err)
				}
				if list.CacheScope != "private" || read.CacheScope != list.CacheScope {
					t.Errorf("cacheScope: resources/list %q, resources/read %q; want both private", list.CacheScope, read.CacheScope)
				}
			})
		}
	}
}
