package server_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/profile"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/shell"
)

// newServer serves tables (the fsmcp one when none) on root with small
// limits and the shell off; both are closed when the test ends.
func newServer(t *testing.T, root string, tables ...*profile.Table) *server.Server {
	t.Helper()
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	srv, err := server.New(server.Config{Name: "fsmcp", Version: "test", Shell: shell.ModeOff, Profiles: tables,
		Limits: profile.Limits{MaxFileSize: 1 << 20, MaxOutput: 10000, Timeout: 10 * time.Second, MaxResults: 100}},
		sb, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}
