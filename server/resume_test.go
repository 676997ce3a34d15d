package server_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/profiles/fsmcp"
	"github.com/fsmcp/fsmcp/server"
)

// TestResumeStream: a client whose SSE stream broke after the priming
// event reconnects with Last-Event-ID and gets the answer it missed.
func TestResumeStream(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	srv := newServer(t, t.TempDir(), fsmcp.Table())
	hs := httptest.NewServer(srv.Handler(server.HTTPOptions{Log: log}))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	send := func(method, body string, hdr map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, hs.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := send("POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	resp = send("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	resp.Body.Close()

	// Keep only the priming event's id; the event says when to come back.
	resp = send("POST", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, hdr)
	sc := bufio.NewScanner(resp.Body)
	primed, retry := "", ""
	for sc.Scan() {
		if ms, ok := strings.CutPrefix(sc.Text(), "retry: "); ok {
			retry = ms
		}
		if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			primed = id
			break
		}
	}
	if want := strconv.FormatInt(server.ReconnectAfter.Milliseconds(), 10); retry != want {
		t.Errorf("priming event's retry = %q, want %q", retry, want)
	}
	// Drain to the end, which comes once the server's side of the stream
	// is done, so the resume cannot race it; the answer read is dropped,
	// as if the connection had broken.
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if primed == "" {
		t.Fatal("no priming event with an id")
	}
	hdr["Last-Event-ID"] = primed
	resp = send("GET", "", hdr)
	defer resp.Body.Close()
	sc = bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") && strings.Contains(sc.Text(), `"id":2`) {
			if !strings.Contains(sc.Text(), "fs_read") {
				t.Fatalf("replayed answer lacks the tools: %.200s", sc.Text())
			}
			return
		}
	}
	t.Fatalf("the resumed stream ended without the missed answer (status %d): %v", resp.StatusCode, sc.Err())
}
