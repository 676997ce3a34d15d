package server

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend/stack"
	"github.com/fsmcp/fsmcp/profiles"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

// TestOneWatchServesEverySpellingOfAURI pins issue 18 item 11: each
// spelling of one directory's URI (file:///R, file:///R/, file:///R//, a
// link to R) got its own recursive watcher. Now one watcher serves them
// all, and a change notifies every session under the URI it used.
func TestOneWatchServesEverySpellingOfAURI(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	dir := filepath.Join(base, "root")
	if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	sb, errs := sandbox.New([]string{dir})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	defer sb.Close()
	tables, err := profiles.Lookup("")
	if err != nil {
		t.Fatal(err)
	}
	search, err := stack.New(stack.Options{Roots: sb.Roots()})
	if err != nil {
		t.Fatal(err)
	}
	defer search.Close()
	srv, err := New(Config{Name: "fsmcp", Version: "test", Resources: true, Profiles: tables, Search: search.Stack,
		Settings: toolkit.Settings{Limits: toolkit.Limits{MaxFileSize: 1 << 20, MaxOutput: 100000, Timeout: time.Minute, MaxResults: 1000}}},
		sb, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	updated := make(chan string, 64)
	connect := func() *mcp.ClientSession {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.MCP.Connect(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
				updated <- req.Params.URI
			},
		})
		cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	d := filepath.Join(dir, "d")
	spellings := []string{"file://" + d, "file://" + d + "/", "file://" + d + "//", "file://" + filepath.Join(dir, "alias")}
	for i, cs := range []*mcp.ClientSession{connect(), connect()} {
		for _, u := range spellings[i*2 : i*2+2] {
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: u}); err != nil {
				t.Fatalf("subscribe %s: %v", u, err)
			}
		}
	}
	if n := srv.res.Watching(); n != 1 {
		t.Fatalf("%d watchers for one directory, want 1", n)
	}
	if err := os.WriteFile(filepath.Join(d, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, u := range spellings {
		want[u] = true
	}
	deadline := time.After(time.Minute) // only bounds a hang
	for len(want) > 0 {
		select {
		case u := <-updated:
			delete(want, u)
		case <-deadline:
			t.Fatalf("no update for %v", want)
		}
	}
}
