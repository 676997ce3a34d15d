package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/procfd"
	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/resources"
)

// TestSubscriptionsCappedOneInotify subscribes one session to 200
// directories: past the cap each gets a clear error, the server goes on
// answering, and the process holds a single inotify descriptor.
func TestSubscriptionsCappedOneInotify(t *testing.T) {
	// The legacy protocol: one subscribe request per URI, kept until
	// unsubscribed (the newer one re-sends the whole set on one listen).
	e := testenv.New(t, testenv.WithResources(), testenv.WithLegacyProtocol())
	ctx := context.Background()
	refused := 0
	for i := range 200 {
		d := filepath.Join(e.Root, fmt.Sprintf("w%03d", i))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		err := e.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: uri(d)})
		switch {
		case i < resources.MaxSubscriptions && err != nil:
			t.Fatalf("subscription %d: %v", i, err)
		case i >= resources.MaxSubscriptions:
			if !isCode(err, jsonrpc.CodeInvalidParams) || !strings.Contains(err.Error(), "unsubscribe from some first") {
				t.Fatalf("subscription %d past the cap: %v", i, err)
			}
			refused++
		}
	}
	if refused != 200-resources.MaxSubscriptions {
		t.Fatalf("%d refused", refused)
	}
	if n := procfd.Inotify(t); n != 1 {
		t.Fatalf("%d inotify descriptors, want 1", n)
	}
	// Still answering, and a freed slot can be used again.
	if _, err := e.CS.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.CS.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri(filepath.Join(e.Root, "w000"))}); err != nil {
		t.Fatal(err)
	}
	if err := e.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: uri(filepath.Join(e.Root, "w199"))}); err != nil {
		t.Fatalf("subscribe after an unsubscribe: %v", err)
	}
}
