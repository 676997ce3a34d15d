package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipe runs a tiny server behind the front and lets a test write lines and
// read answers.
type pipe struct {
	t           *testing.T
	in          *io.PipeWriter
	answers     chan string
	served      chan error
	initialized *atomic.Int32
}

func startPipe(t *testing.T, opts Options) *pipe {
	t.Helper()
	var initialized atomic.Int32
	s := mcp.NewServer(&mcp.Implementation{Name: "tiny", Version: "1"}, &mcp.ServerOptions{
		InitializedHandler: func(context.Context, *mcp.InitializedRequest) { initialized.Add(1) },
	})
	type args struct {
		S string `json:"s"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo " + a.S}}}, nil, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipe{t: t, in: inW, answers: make(chan string, 100), served: make(chan error, 1), initialized: &initialized}
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			p.answers <- sc.Text()
		}
	}()
	go func() {
		p.served <- Serve(context.Background(), s, &Stdio{In: inR, Out: outW, Options: opts})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

func (p *pipe) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// next returns the next answer, decoded.
func (p *pipe) next() map[string]any {
	p.t.Helper()
	select {
	case line := <-p.answers:
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			p.t.Fatalf("answer %q is not JSON: %v", line, err)
		}
		return m
	case <-time.After(30 * time.Second):
		p.t.Fatal("no answer within 30s")
	}
	return nil
}

func (p *pipe) end() error {
	p.t.Helper()
	select {
	case err := <-p.served:
		return err
	case <-time.After(30 * time.Second):
		p.t.Fatal("Serve did not return within 30s")
	}
	return nil
}

func text(m map[string]any) string {
	data, _ := json.Marshal(m["result"])
	return string(data)
}

func code(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func TestBadLinesAnswered(t *testing.T) {
	p := startPipe(t, Options{MaxMessage: 100})
	for _, c := range []struct {
		line string
		code float64
		id   any
	}{
		{"hello", -32700, nil},
		{"[1,2,3]", -32600, nil},
		{"{}", -32600, nil},
		{`{"jsonrpc":"1.0","id":"x","method":"ping"}`, -32600, "x"},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"pad":"` + strings.Repeat("y", 200) + `"}}`, -32600, float64(9)},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"pad":"` + strings.Repeat("y", 2*headSize) + `"},"id":9}`, -32600, nil},
	} {
		p.send(c.line)
		m := p.next()
		if code(m) != c.code || m["id"] != c.id {
			t.Errorf("%.40s: %v, want code %v id %v", c.line, m, c.code, c.id)
		}
	}
	p.send("   ")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if m := p.next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("ping after bad lines: %v", m)
	}
	p.in.Close()
	if err := p.end(); err != nil {
		t.Fatalf("Serve at EOF = %v, want nil", err)
	}
}

// A plain client: initialize without params, no initialized, string ids,
// a repeated initialize, shutdown, exit.
func TestPlainSession(t *testing.T) {
	p := startPipe(t, Options{Plain: &Plain{}})
	p.send(`{"jsonrpc":"2.0","id":"init-1","method":"initialize"}`)
	first := p.next()
	if first["id"] != "init-1" || !strings.Contains(text(first), `"tiny"`) {
		t.Fatalf("initialize without params: %v", first)
	}
	p.send(`{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"echo","arguments":{"s":"hi"}}}`)
	if m := p.next(); m["id"] != "call-001" || !strings.Contains(text(m), "echo hi") {
		t.Fatalf("call without initialized: %v", m)
	}
	if n := p.initialized.Load(); n != 1 {
		t.Fatalf("the SDK saw %d initialized notifications, want 1 (synthetic)", n)
	}
	p.send(`{"jsonrpc":"2.0","id":"init-2","method":"initialize"}`)
	if m := p.next(); m["id"] != "init-2" || text(m) != text(first) {
		t.Fatalf("repeated initialize: %v, want the first answer %v", m, first)
	}
	p.send(`{"jsonrpc":"2.0","id":"bye","method":"shutdown"}`)
	if m := p.next(); m["id"] != "bye" || m["result"] != nil || code(m) != 0 {
		t.Fatalf("shutdown: %v, want result null", m)
	} else if _, ok := m["result"]; !ok {
		t.Fatalf("shutdown: %v has no result", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if err := p.end(); !errors.Is(err, ErrExit) {
		t.Fatalf("Serve after exit = %v, want ErrExit", err)
	}
}

// A plain client may call before any initialize; the front initializes on
// its behalf and keeps that answer from it.
func TestPlainCallBeforeInitialize(t *testing.T) {
	p := startPipe(t, Options{Plain: &Plain{}})
	p.send(`{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"echo","arguments":{"s":"first"}}}`)
	if m := p.next(); m["id"] != "call-001" || !strings.Contains(text(m), "echo first") {
		t.Fatalf("call before initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":5,"method":"initialize"}`)
	if m := p.next(); m["id"] != float64(5) || !strings.Contains(text(m), `"protocolVersion"`) {
		t.Fatalf("initialize after a call: %v", m)
	}
	p.in.Close()
	if err := p.end(); err != nil {
		t.Fatalf("Serve at EOF = %v", err)
	}
}

// A standard MCP client is served as before with the plain hooks on.
func TestPlainServesMCPClients(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "tiny", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a struct {
		S string `json:"s"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo " + a.S}}}, nil, nil
	})
	cIn, sOut := io.Pipe()
	sIn, cOut := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), s, &Stdio{In: sIn, Out: sOut, Options: Options{Plain: &Plain{}}})
	}()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: cIn, Writer: cOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"s": "std"}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "echo std" {
		t.Fatalf("call from an MCP client: %v %v", res, err)
	}
	cs.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not end after the client closed")
	}
}

// A call waiting on the client (roots/list) when input ends is answered:
// the front fails the server's own unanswered calls at EOF.
func TestEOFFailsServerCalls(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "tiny", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		//lint:ignore SA1019 fsmcp still asks a client for its roots (SPEC §2), so this is the call to test
		_, err := req.Session.ListRoots(ctx, nil)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("roots: %v", err)}}}, nil, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), s, &Stdio{In: inR, Out: outW, Options: Options{Drain: 20 * time.Second}})
		outW.Close()
	}()
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"roots","arguments":{}}}`+"\n")
	var got []string
	for line := range lines {
		got = append(got, line)
		if strings.Contains(line, `"roots/list"`) {
			inW.Close() // the client leaves without answering
		}
	}
	if len(got) != 3 || !strings.Contains(got[2], `"id":2`) || !strings.Contains(got[2], "input ended") {
		t.Fatalf("answers %q, want initialize, roots/list, and the call's answer", got)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve = %v", err)
	}
}

// The catalog's client sends initialize with only its capabilities: that
// is not an MCP client's initialize, which always names a protocolVersion.
func TestBareInitializeIsDecidedByProtocolVersion(t *testing.T) {
	for params, want := range map[string]bool{
		``:                                 true,
		`null`:                             true,
		`{}`:                               true,
		`{"capabilities":{"tools":{}}}`:    true,
		`[1]`:                              true,
		`{"protocolVersion":"2025-06-18"}`: false,
		`{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`: false,
	} {
		if got := bare(json.RawMessage(params)); got != want {
			t.Errorf("bare(%s) = %v, want %v", params, got, want)
		}
	}
}
