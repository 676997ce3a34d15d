package server_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

// TestPlainExitOverHTTPNeedsTheProfile: a plain `exit` POSTed over HTTP
// ends the server only for a profile whose clients stop it that way (the
// catalog); on any other plain profile (fsmcp) it is answered and ignored,
// so one token holder cannot stop a server others use.
func TestPlainExitOverHTTPNeedsTheProfile(t *testing.T) {
	for _, httpExit := range []bool{false, true} {
		log := slog.New(slog.DiscardHandler)
		tab := &toolkit.Table{
			Name: "plain",
			Transport: toolkit.Transport{
				Wire:     toolkit.Plain,
				HTTPExit: httpExit,
			},
		}
		srv := newServer(t, t.TempDir(), tab)
		var exited atomic.Bool
		hs := httptest.NewServer(srv.Handler(server.HTTPOptions{Log: log, OnExit: func() { exited.Store(true) }}))
		defer hs.Close()
		resp, err := http.Post(hs.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"exit"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("HTTPExit %v: status %d, want 202", httpExit, resp.StatusCode)
		}
		if exited.Load() != httpExit {
			t.Errorf("HTTPExit %v: server exit called = %v", httpExit, exited.Load())
		}
	}
}
