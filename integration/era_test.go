package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessVersion is the protocol without sessions (SEP-2575).
const statelessVersion = "2026-07-28"

// handleIn matches the handle an fs_bash answer names on the stateless era.
var handleIn = regexp.MustCompile(`\[session: (sess-[A-Z0-9]+) `)

// TestBothErasOnOneEndpoint: one /mcp serves a 2026-07-28 client
// (server/discover, no session) and a 2025-11-25 client (initialize, a
// session) at once. Each lists and calls tools, and each keeps fs_bash's
// working directory across calls: the session by itself, the stateless
// client through the handle the first answer names.
func TestBothErasOnOneEndpoint(t *testing.T) {
	tr := newTree(t)
	url, _ := startHTTP(t, modes(t)[0], "--shell", "on", tr.root)
	modern := connectHTTPAt(t, url, statelessVersion)
	legacy := connectHTTPAt(t, url, legacyVersion)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	for name, cs := range map[string]*mcp.ClientSession{"stateless": modern, "session": legacy} {
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("%s: tools/list: %v", name, err)
		}
		if len(list.Tools) < 6 {
			t.Errorf("%s: %d tools listed", name, len(list.Tools))
		}
		if out := mustCall(t, cs, "fs_read", map[string]any{"file_path": tr.path("a.txt")}); !strings.Contains(out, needle) {
			t.Errorf("%s: fs_read answered %q", name, out)
		}
	}

	// The stateless era: cd, then pwd in the shell the answer names.
	out := mustCall(t, modern, "fs_bash", map[string]any{"command": "cd sub && pwd"})
	m := handleIn.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("fs_bash on 2026-07-28 named no session: %q", out)
	}
	if out := mustCall(t, modern, "fs_bash", map[string]any{"command": "pwd", "session": m[1]}); !strings.HasPrefix(out, tr.path("sub")+"\n") || !strings.Contains(out, m[1]) {
		t.Errorf("pwd in session %s answered %q, want %s and the session", m[1], out, tr.path("sub"))
	}
	// Without the handle, a new shell in the first root.
	out = mustCall(t, modern, "fs_bash", map[string]any{"command": "pwd"})
	if !strings.HasPrefix(out, tr.root+"\n") || strings.Contains(out, m[1]) {
		t.Errorf("pwd without a session answered %q, want %s in a new session", out, tr.root)
	}
	mustFail(t, modern, "fs_bash", map[string]any{"command": "pwd", "session": "sess-NOSUCHSESSION"}, "unknown session")

	// The session era, on the same endpoint: state as before, no handle.
	mustCall(t, legacy, "fs_bash", map[string]any{"command": "cd sub"})
	if out := mustCall(t, legacy, "fs_bash", map[string]any{"command": "pwd"}); out != tr.path("sub") {
		t.Errorf("pwd in the HTTP session answered %q, want %s", out, tr.path("sub"))
	}
	// A handle works there too: the shell is the handle's, not the session's.
	if out := mustCall(t, legacy, "fs_bash", map[string]any{"command": "pwd", "session": m[1]}); !strings.HasPrefix(out, tr.path("sub")+"\n") {
		t.Errorf("pwd in session %s from the legacy client answered %q", m[1], out)
	}
}

// postModern sends one raw JSON-RPC body on the stateless era with headers and
// returns the status and answer.
func postModern(t *testing.T, url, body string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", statelessVersion)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if h, ok := headers["Host"]; ok {
		req.Host = h
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// meta is the per-request _meta of the 2026-07-28 protocol.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// TestStatelessHeaderMismatchRefused: a 2026-07-28 request whose
// Mcp-Method or Mcp-Name header says other than its body is refused with
// 400 and a JSON-RPC error naming the mismatch, and nothing runs.
func TestStatelessHeaderMismatchRefused(t *testing.T) {
	tr := newTree(t)
	url, _ := startHTTP(t, modes(t)[0], "--shell", "on", tr.root)
	victim := tr.path("victim.txt")
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fs_write","arguments":{"file_path":"` + victim + `","content":"x"},` + meta + `}}`
	for _, c := range []struct {
		name    string
		headers map[string]string
		want    string
	}{
		{"method", map[string]string{"Mcp-Method": "tools/list", "Mcp-Name": "fs_write"}, "Mcp-Method"},
		{"name", map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "fs_read"}, "Mcp-Name"},
		{"no method", map[string]string{"Mcp-Name": "fs_write"}, "Mcp-Method"},
	} {
		status, body := postModern(t, url, call, c.headers)
		var resp struct {
			ID    json.RawMessage
			Error *struct {
				Code    int
				Message string
			}
		}
		if status != http.StatusBadRequest || json.Unmarshal([]byte(body), &resp) != nil || resp.Error == nil || !strings.Contains(resp.Error.Message, c.want) || string(resp.ID) != "7" {
			t.Errorf("%s: answered %d %q; want 400 with a JSON-RPC error about %s", c.name, status, body, c.want)
		}
	}
	if _, err := os.Stat(victim); err == nil {
		t.Errorf("a refused request wrote %s", victim)
	}
	// With matching headers the same request runs.
	status, body := postModern(t, url, call, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "fs_write"})
	if status != http.StatusOK {
		t.Fatalf("matching headers: answered %d %q", status, body)
	}
	if got, err := os.ReadFile(victim); err != nil || string(got) != "x" {
		t.Errorf("matching headers: %s holds %q (%v)", victim, got, err)
	}
}

// TestStatelessGarbageRefused: what is not JSON-RPC on the stateless era
// gets a 4xx and the server goes on serving both eras.
func TestStatelessGarbageRefused(t *testing.T) {
	tr := newTree(t)
	url, _ := startHTTP(t, modes(t)[0], "--shell", "off", tr.root)
	list := map[string]string{"Mcp-Method": "tools/list"}
	for _, c := range []struct {
		body    string
		headers map[string]string
	}{
		{"garbage{", list},
		{`{"jsonrpc":"2.0","id":1,"method":42}`, list},
		{`[]`, list},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, list}, // no _meta
		{`{"jsonrpc":"2.0","id":1,"method":"no/such","params":{` + meta + `}}`, map[string]string{"Mcp-Method": "no/such"}},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs_read","arguments":"x",` + meta + `}}`, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "fs_read"}},
		{strings.Repeat("[", 100000), list},
	} {
		// Refused by status, or (a call the SDK took) by a JSON-RPC error
		// or a tool's isError.
		status, answer := postModern(t, url, c.body, c.headers)
		if (status < 400 || status >= 500) && !strings.Contains(answer, `"error":{`) && !strings.Contains(answer, `"isError":true`) {
			t.Errorf("%.40q: answered %d %.200q, want a 4xx, a JSON-RPC error or isError", c.body, status, answer)
		}
	}
	// A bogus protocol version in the header.
	if status, answer := postModern(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`, map[string]string{"Mcp-Protocol-Version": "9999-99-99", "Mcp-Method": "tools/list"}); status < 400 || status >= 500 {
		t.Errorf("version 9999-99-99: answered %d %.200q, want a 4xx", status, answer)
	}
	for _, v := range []string{statelessVersion, legacyVersion} {
		cs := connectHTTPAt(t, url, v)
		if out := mustCall(t, cs, "fs_read", map[string]any{"file_path": tr.path("a.txt")}); !strings.Contains(out, needle) {
			t.Errorf("after the garbage, %s: fs_read answered %q", v, out)
		}
	}
}

// TestStatelessResourceSubscriptionByListen: on 2026-07-28 a resource
// subscription is a subscriptions/listen stream (the SDK's client opens
// one for Subscribe); a change to the file arrives on it as
// notifications/resources/updated.
func TestStatelessResourceSubscriptionByListen(t *testing.T) {
	tr := newTree(t)
	url, _ := startHTTP(t, modes(t)[0], "--resources", "--shell", "off", tr.root)
	updated := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "fsmcp-integration", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case updated <- req.Params.URI:
			default:
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: statelessVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != statelessVersion {
		t.Fatalf("negotiated %s", v)
	}
	uri := fileURI(tr.path("a.txt"))
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("subscribe by listen: %v", err)
	}
	mustCall(t, cs, "fs_write", map[string]any{"file_path": tr.path("a.txt"), "content": "changed\n"})
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("updated %s, want %s", got, uri)
		}
	case <-ctx.Done():
		t.Fatal("no notifications/resources/updated on the listen stream")
	}
}

// TestStatelessWatchByHandle: on 2026-07-28 fs_watch's start names a
// session; its watch outlives the call and is polled and stopped through
// it. A poll without it is refused with the reason.
func TestStatelessWatchByHandle(t *testing.T) {
	tr := newTree(t)
	url, _ := startHTTP(t, modes(t)[0], "--resources", "--shell", "off", tr.root)
	updated := make(chan string, 1000)
	client := mcp.NewClient(&mcp.Implementation{Name: "fsmcp-integration", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: statelessVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out := mustCall(t, cs, "fs_watch", map[string]any{"path": tr.root})
	w, h := watcherID.FindStringSubmatch(out), handleIn.FindStringSubmatch(out)
	if w == nil || h == nil {
		t.Fatalf("fs_watch start on 2026-07-28 named no watcher or session: %s", out)
	}
	mustFail(t, cs, "fs_watch", map[string]any{"action": "poll", "watcher_id": w[1]}, "session is required")

	// The resource subscription tells when the kernel has seen the write.
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: fileURI(tr.root)}); err != nil {
		t.Fatal(err)
	}
	created := tr.path("fresh.txt")
	write(t, created, "new")
	for u := ""; u != fileURI(tr.root); { // a directory's subscription names the directory
		select {
		case u = <-updated:
		case <-ctx.Done():
			t.Fatal("no notifications/resources/updated for the directory")
		}
	}
	poll := map[string]any{"action": "poll", "watcher_id": w[1], "session": h[1]}
	for range 100 { // the watch's queue may trail the subscription's by a moment
		if out = mustCall(t, cs, "fs_watch", poll); strings.Contains(out, "created\t"+created) {
			break
		}
	}
	if !strings.Contains(out, "created\t"+created) {
		t.Errorf("poll in session %s:\n%s", h[1], out)
	}
	mustCall(t, cs, "fs_watch", map[string]any{"action": "stop", "watcher_id": w[1], "session": h[1]})
	mustFail(t, cs, "fs_watch", poll, "no watcher "+w[1])
}

// TestStatelessListsCarryCacheHints: on 2026-07-28 over HTTP the tool list
// (fixed for the run) may be kept by the user's client for a while, and a
// resource read (files change at any time) is private and stale at once;
// the session era keeps the SDK's defaults.
func TestStatelessListsCarryCacheHints(t *testing.T) {
	tr := newTree(t)
	url, _ := startHTTP(t, modes(t)[0], "--resources", "--shell", "off", tr.root)
	ctx := context.Background()
	modern := connectHTTPAt(t, url, statelessVersion)
	list, err := modern.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if list.TTLMs <= 0 || list.CacheScope != "private" {
		t.Errorf("tools/list on 2026-07-28: ttlMs %d, cacheScope %q; want a TTL, private", list.TTLMs, list.CacheScope)
	}
	read, err := modern.ReadResource(ctx, &mcp.ReadResourceParams{URI: fileURI(tr.path("a.txt"))})
	if err != nil {
		t.Fatal(err)
	}
	if read.TTLMs != 0 || read.CacheScope != "private" {
		t.Errorf("resources/read on 2026-07-28: ttlMs %d, cacheScope %q; want 0, private", read.TTLMs, read.CacheScope)
	}
	legacy := connectHTTPAt(t, url, legacyVersion)
	if list, err = legacy.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if list.TTLMs != 0 || list.CacheScope != "public" {
		t.Errorf("tools/list on %s: ttlMs %d, cacheScope %q; want the SDK's 0, public", legacyVersion, list.TTLMs, list.CacheScope)
	}
}

// TestStatelessEraBehindTheSameGuards: a 2026-07-28 request meets the
// bearer token and the Host check as a session's does.
func TestStatelessEraBehindTheSameGuards(t *testing.T) {
	tr := newTree(t)
	url, _ := startHTTP(t, modes(t)[0], "--auth-token", "era-token", "--shell", "off", tr.root)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`
	if status, body := postModern(t, url, list, map[string]string{"Mcp-Method": "tools/list"}); status != http.StatusUnauthorized {
		t.Errorf("no token: %d %.200q, want 401", status, body)
	}
	if status, body := postModern(t, url, list, map[string]string{"Mcp-Method": "tools/list", "Authorization": "Bearer era-token", "Host": "evil.example"}); status != http.StatusForbidden {
		t.Errorf("rebinding Host: %d %.200q, want 403", status, body)
	}
	if status, body := postModern(t, url, list, map[string]string{"Mcp-Method": "tools/list", "Authorization": "Bearer era-token"}); status != http.StatusOK || !strings.Contains(body, "fs_read") {
		t.Errorf("with the token: %d %.200q", status, body)
	}
}

// TestStatelessListensAreCapped: subscriptions/listen streams, which hold
// watchers for as long as they stay open, are bounded by --max-sessions
// apart from the sessions: one more is refused with 503, and a session
// can still be opened beside them.
func TestStatelessListensAreCapped(t *testing.T) {
	tr := newTree(t)
	url, _ := startHTTP(t, modes(t)[0], "--resources", "--max-sessions", "1", "--shell", "off", tr.root)
	listen := func(id int, file string) *http.Response {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":[%q]},%s}}`, id, fileURI(tr.path(file)), meta)
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", statelessVersion)
		req.Header.Set("Mcp-Method", "subscriptions/listen")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	first := listen(1, "a.txt")
	defer first.Body.Close()
	// The acknowledgement is the stream's first event: the listen is open.
	events := bufio.NewReader(first.Body)
	ack, err := events.ReadString('\n')
	for err == nil && !strings.Contains(ack, "subscriptions/acknowledged") {
		ack, err = events.ReadString('\n')
	}
	if first.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("first listen: %d %v", first.StatusCode, err)
	}
	second := listen(2, "b.go")
	body, _ := io.ReadAll(second.Body)
	second.Body.Close()
	if second.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "subscriptions/listen streams") {
		t.Errorf("a second listen past --max-sessions 1: %d %q", second.StatusCode, body)
	}
	legacy := connectHTTPAt(t, url, legacyVersion)
	mustCall(t, legacy, "fs_read", map[string]any{"file_path": tr.path("a.txt")})
	modern := connectHTTPAt(t, url, statelessVersion)
	mustCall(t, modern, "fs_read", map[string]any{"file_path": tr.path("a.txt")})
}
