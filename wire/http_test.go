package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func tinyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "tiny", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a struct {
		S string `json:"s"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo " + a.S}}}, nil, nil
	})
	return s
}

func startHTTP(t *testing.T, h http.Handler, l httpLimits) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = httpServer(h, l)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL
}

// A client that sends its body slowly is cut off after the body bound.
func TestSlowBodyIsCut(t *testing.T) {
	reached := make(chan struct{}, 1)
	url := startHTTP(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached <- struct{}{} }),
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
	url := startHTTP(t, http.NotFoundHandler(), httpLimits{maxBody: 1000, bodyTimeout: time.Minute})
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

func postPlain(t *testing.T, url, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

func TestPlainHTTP(t *testing.T) {
	s := tinyServer()
	std := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	exited := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.Handle("/mcp", PlainHTTP(std, s, &Plain{}, func() { exited <- struct{}{} }, nil))
	url := startHTTP(t, mux, httpLimits{maxBody: DefaultMaxBody, bodyTimeout: time.Minute}) + "/mcp"

	for _, c := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"echo","arguments":{"s":"first"}}}`, 200, `"id":"call-001","result":{"content":[{"type":"text","text":"echo first"}]`},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, 200, `"serverInfo":{"name":"tiny"`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, ``},
		{`{"jsonrpc":"2.0","method":"some/notification"}`, 202, ``},
		{`{"jsonrpc":"2.0","id":"u","method":"no/such"}`, 200, `{"jsonrpc":"2.0","id":"u","error":{"code":-32601,"message":"method not found: \"no/such\""}}`},
		{`not json`, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`},
		{`{"jsonrpc":"2.0","id":"s","method":"shutdown"}`, 200, `{"jsonrpc":"2.0","id":"s","result":null}`},
		{`{"jsonrpc":"2.0","method":"exit"}`, 202, ``},
	} {
		status, body := postPlain(t, url, c.body)
		if status != c.status || !strings.Contains(body, c.want) || (c.want == "" && body != "") {
			t.Errorf("%s: %d %q, want %d %q", c.body, status, body, c.status, c.want)
		}
	}
	select {
	case <-exited:
	default:
		t.Error("exit did not call onExit")
	}

	// An MCP client is served by std, with its session.
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if cs.ID() == "" {
		t.Error("the MCP client got no session: it was served as plain")
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"s": "std"}})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := json.Marshal(res); !strings.Contains(string(data), "echo std") {
		t.Fatalf("MCP client call: %s", data)
	}
}

// Once the body is in, the answer may stream for longer than the body
// bound: the request is not cancelled.
func TestLongAnswerOutlivesBodyBound(t *testing.T) {
	bound := 100 * time.Millisecond
	url := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	status, body := postPlain(t, url, `{}`)
	if status != 200 || body != "done" {
		t.Fatalf("a long answer: %d %q, want 200 done", status, body)
	}
}

// The params the front fills in say so (Bare); a client's own do not.
func TestBareMarksFilledParams(t *testing.T) {
	var filled mcp.InitializeParams
	if err := json.Unmarshal((&Plain{}).params(), &filled); err != nil {
		t.Fatal(err)
	}
	if !Bare(&filled) {
		t.Error("the front's params are not marked")
	}
	if Bare(&mcp.InitializeParams{ProtocolVersion: "2025-06-18"}) || Bare(nil) {
		t.Error("a client's params are marked")
	}
}
