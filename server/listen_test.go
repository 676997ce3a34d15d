package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func startBounded(t *testing.T, h http.Handler, l httpLimits) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = httpServer(h, l)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL
}

func postBody(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// A client that sends its body slowly is cut off after the body bound.
func TestSlowBodyIsCut(t *testing.T) {
	reached := make(chan struct{}, 1)
	url := startBounded(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached <- struct{}{} }),
		httpLimits{maxBody: 1 << 20, bodyTimeout: 200 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"json")
	c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a failure bound, not the bound under test
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), `"code":-32600`) {
		t.Fatalf("stalled body: %d %s", resp.StatusCode, body)
	}
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the connection stayed open after a stalled body: %v", err)
	}
	select {
	case <-reached:
		t.Fatal("the handler saw a request whose body never came")
	default:
	}
}

func TestBodyOverCapIs413(t *testing.T) {
	url := startBounded(t, http.NotFoundHandler(), httpLimits{maxBody: 1000, bodyTimeout: time.Minute})
	for _, chunked := range []bool{false, true} {
		var body io.Reader = strings.NewReader(strings.Repeat("x", 2000))
		if chunked {
			body = io.MultiReader(body) // no length: sent chunked
		}
		resp, err := http.Post(url+"/mcp", "application/json", body)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(data), "over the limit of 1000 bytes") {
			t.Fatalf("chunked=%v: %d %s", chunked, resp.StatusCode, data)
		}
	}
}

// Once the body is in, the answer may stream for longer than the body
// bound: the request is not cancelled.
func TestLongAnswerOutlivesBodyBound(t *testing.T) {
	bound := 100 * time.Millisecond
	url := startBounded(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
			io.WriteString(w, "cancelled")
		case <-time.After(5 * bound):
			io.WriteString(w, "done")
		}
	}), httpLimits{maxBody: 1 << 20, bodyTimeout: bound})
	status, body := postBody(t, url, `{}`)
	if status != 200 || body != "done" {
		t.Fatalf("a long answer: %d %q, want 200 done", status, body)
	}
}

// TestTokenBannerNamesAUsableAddress pins that the address printed for a
// listener on every interface (the image's 0.0.0.0:8080, or [::]:8080) is
// one a client can use, with a note on the mapped port, never
// http://[::]:8080/mcp.
func TestTokenBannerNamesAUsableAddress(t *testing.T) {
	for _, c := range []struct{ addr, url string }{
		{"[::]:8080", "http://127.0.0.1:8080/mcp"},
		{"0.0.0.0:8080", "http://127.0.0.1:8080/mcp"},
		{"127.0.0.1:18080", "http://127.0.0.1:18080/mcp"},
		{"[::1]:8080", "http://[::1]:8080/mcp"},
	} {
		url, note := clientURL(c.addr)
		if url != c.url {
			t.Errorf("clientURL(%s) = %s, want %s", c.addr, url, c.url)
		}
		if unspecified := strings.HasPrefix(c.addr, "[::]") || strings.HasPrefix(c.addr, "0.0.0.0"); unspecified != (note != "") || (note != "" && !strings.Contains(note, "port mapped to 8080")) {
			t.Errorf("clientURL(%s) note = %q", c.addr, note)
		}
	}
}
