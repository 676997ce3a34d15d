package wire

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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

func startHTTP(t *testing.T, h http.Handler) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
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
	url := startHTTP(t, mux) + "/mcp"

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
