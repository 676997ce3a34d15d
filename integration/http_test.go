package integration

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func post(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestHTTPSafety(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]

	url, _ := startHTTP(t, m, tr.root)
	resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /healthz = %v %v", resp, err)
	}
	resp.Body.Close()
	if code, body := post(t, url, nil); code != 200 || !strings.Contains(body, `"serverInfo"`) {
		t.Fatalf("plain initialize = %d %s", code, body)
	}
	if code, _ := post(t, url, map[string]string{"Origin": "https://evil.example"}); code != http.StatusForbidden {
		t.Fatalf("foreign Origin = %d, want 403", code)
	}
	if code, _ := post(t, url, map[string]string{"Host": "evil.example:80"}); code != http.StatusForbidden {
		t.Fatalf("rebound Host = %d, want 403", code)
	}
	if code, _ := post(t, url, map[string]string{"Origin": "http://localhost:3000"}); code != 200 {
		t.Fatalf("loopback Origin = %d, want 200", code)
	}

	url, _ = startHTTP(t, m, "--auth-token", "s3cret", tr.root)
	if code, _ := post(t, url, nil); code != http.StatusUnauthorized {
		t.Fatalf("no token = %d, want 401", code)
	}
	if code, _ := post(t, url, map[string]string{"Authorization": "Bearer wrong"}); code != http.StatusUnauthorized {
		t.Fatalf("wrong token = %d, want 401", code)
	}
	if code, _ := post(t, url, map[string]string{"Authorization": "Bearer s3cret"}); code != 200 {
		t.Fatalf("right token = %d, want 200", code)
	}
	// And a real client with the token can work.
	hc := &http.Client{Transport: bearer{"s3cret"}}
	cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, sessionEra)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mustCall(t, cs, "fs_read", map[string]any{"file_path": tr.path("a.txt")})
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPTokenMadeAtStart: with neither --auth-token nor --no-auth, fsmcp
// makes a token, prints the header a client needs, and requires it.
func TestHTTPTokenMadeAtStart(t *testing.T) {
	tr := newTree(t)
	url, token, _ := launchHTTP(t, modes(t)[0], tr.root)
	if len(token) < 20 {
		t.Fatalf("no token printed (got %q)", token)
	}
	if code, _ := post(t, url, nil); code != http.StatusUnauthorized {
		t.Fatalf("no token = %d, want 401", code)
	}
	if code, _ := post(t, url, map[string]string{"Authorization": "Bearer " + token}); code != 200 {
		t.Fatalf("printed token = %d, want 200", code)
	}
	hc := &http.Client{Transport: bearer{token}}
	cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, sessionEra)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mustCall(t, cs, "fs_read", map[string]any{"file_path": tr.path("a.txt")})
}
