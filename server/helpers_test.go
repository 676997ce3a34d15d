package server_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend/stack"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/shell"
	"github.com/fsmcp/fsmcp/toolkit"
)

// newServer serves tables (the fsmcp one when none) on root with small
// limits and the shell off; both are closed when the test ends.
func newServer(t *testing.T, root string, tables ...*toolkit.Table) *server.Server {
	t.Helper()
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	search, err := stack.New(stack.Options{Roots: sb.Roots()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(search.Close)
	srv, err := server.New(server.Config{Name: "fsmcp", Version: "test", Profiles: tables, Search: search.Stack, Settings: toolkit.Settings{Shell: string(shell.ModeOff),
		Limits: toolkit.Limits{MaxFileSize: 1 << 20, MaxOutput: 10000, Timeout: 10 * time.Second, MaxResults: 100}}},
		sb, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}
