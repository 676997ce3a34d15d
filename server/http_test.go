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

	"github.com/fsmcp/fsmcp/profiles/fsmcp"
	"github.com/fsmcp/fsmcp/server"
)

// TestIdleHTTPSessionIsClosed: a session that sends nothing for
// SessionIdle is closed, so an abandoned client cannot pin a shell and
// watchers for the life of the server.
func TestIdleHTTPSessionIsClosed(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	srv := newServer(t, root, fsmcp.Table())
	const idle = 500 * time.Millisecond
	hs := httptest.NewServer(srv.Handler(server.HTTPOptions{Log: log, SessionIdle: idle}))
	defer hs.Close()

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // sessions are of that era
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"file_path": filepath.Join(root, "a.txt")}
	call := func() error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_read", Arguments: args})
		if err == nil && res.IsError {
			t.Fatalf("fs_read: %v", res.Content)
		}
		return err
	}
	// The test watches the server's session end instead of guessing how
	// long it takes; times are compared only where a timer cannot err (it
	// never fires early).
	var ss *mcp.ServerSession
	for s := range srv.MCP.Sessions() {
		ss = s
	}
	if ss == nil {
		t.Fatal("no server session")
	}
	closed := make(chan time.Time, 1)
	go func() {
		ss.Wait()
		closed <- time.Now()
	}()

	// Active use keeps the session alive past the idle time. A call may
	// fail only if the server saw no request for idle (the machine
	// stalled): then the rest of the test still holds.
	start := time.Now()
	lastStart := start
	tick := time.NewTicker(idle / 5) // paces the calls; no result depends on it
	defer tick.Stop()
	for time.Since(start) < 3*idle {
		<-tick.C
		prev := lastStart
		lastStart = time.Now()
		if err := call(); err != nil {
			if time.Since(prev) < idle {
				t.Fatalf("a session in use was closed: %v", err)
			}
			t.Logf("the machine stalled for over %v between calls; skipping the rest of the in-use check", idle)
			lastStart = prev // the session ended before this call
			break
		}
	}

	// Left alone, it is closed, and not before idle has passed since the
	// last request began.
	select {
	case at := <-closed:
		if d := at.Sub(lastStart); d < idle {
			t.Errorf("session closed %v after the last request, before the %v idle time", d, idle)
		}
	case <-time.After(2 * time.Minute): // only bounds a hang
		t.Fatal("an idle session was not closed")
	}
	if call() == nil {
		t.Fatal("a session closed for idling still answered")
	}
}
