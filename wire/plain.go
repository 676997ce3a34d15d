package wire

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Plain serves clients that speak plain newline-delimited JSON-RPC without
// an MCP SDK (the catalog's and LocalCowork's): they send `initialize`
// without params, never send `notifications/initialized`, may call before
// any `initialize`, and end with `shutdown` and `exit`. Standard MCP
// clients are served as before.
type Plain struct {
	// ProtocolVersion is the version a client that sent no params is taken
	// to speak (default DefaultPlainVersion).
	ProtocolVersion string
	// ClientInfo names a client that sent no params (default
	// "plain-jsonrpc").
	ClientInfo mcp.Implementation
}

// DefaultPlainVersion is the newest protocol version that still starts
// with initialize.
const DefaultPlainVersion = "2025-11-25"

// Method names the front knows.
const (
	methodInitialize  = "initialize"
	methodInitialized = "notifications/initialized"
	methodShutdown    = "shutdown"
	methodExit        = "exit"
)

// syntheticID is the id of the initialize the front sends on a client's
// behalf; its answer is kept from the client.
var syntheticID, _ = jsonrpc.MakeID("fsmcp-wire-initialize")

// BareMeta is the _meta key the front sets in the initialize params it
// fills in for a client that sent none, or no protocolVersion (see bare): a profile may answer such a client
// in its original's own shape (toolkit.Table.PlainInitialize), which an MCP
// client, who always sends params, never sees.
const BareMeta = "fsmcp/bare-initialize"

// Bare reports whether p are params the front filled in (see BareMeta).
func Bare(p *mcp.InitializeParams) bool {
	if p == nil {
		return false
	}
	v, _ := p.Meta[BareMeta].(bool)
	return v
}

// params fills in what a client sent no params for (or params without a
// protocolVersion, whose capabilities are not MCP's: they are dropped).
func (p *Plain) params() json.RawMessage {
	v := p.ProtocolVersion
	if v == "" {
		v = DefaultPlainVersion
	}
	info := p.ClientInfo
	if info.Name == "" {
		info = mcp.Implementation{Name: "plain-jsonrpc", Version: "0"}
	}
	// Capabilities are written as {}: an mcp.ClientCapabilities marshals
	// as {"roots":{}}, which would claim roots and make the server ask a
	// client that cannot answer.
	data, _ := json.Marshal(map[string]any{"_meta": map[string]any{BareMeta: true}, "protocolVersion": v, "capabilities": map[string]any{}, "clientInfo": &info})
	return data
}

// bare reports whether initialize params are not an MCP client's: an MCP
// client always sends a protocolVersion; the seeds' clients send none, or
// only their capabilities (the catalog's: {"capabilities": {...}}).
func bare(params json.RawMessage) bool {
	var p struct {
		ProtocolVersion *string `json:"protocolVersion"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return true
	}
	return p.ProtocolVersion == nil
}

// plainState is the front's view of the session: what it has sent the SDK
// and the initialize answer it keeps for repeated initializes.
type plainState struct {
	p              *Plain
	initSent       bool // an initialize (the client's or ours) went to the SDK
	initializedSet bool // so did notifications/initialized

	mu       sync.Mutex
	initIDs  map[jsonrpc.ID]bool // initialize calls sent to the SDK; true: ours
	answer   *jsonrpc.Response   // the first initialize answer
	answered chan struct{}       // closed once answer is set
}

func newPlainState(p *Plain) *plainState {
	return &plainState{p: p, initIDs: map[jsonrpc.ID]bool{}, answered: make(chan struct{})}
}

// filter runs in the read loop, before msg goes to the SDK. It returns the
// message to send (nil: none) and whether input should stop (exit). It may
// send synthetic messages first, or answer msg itself.
func (s *plainState) filter(c *conn, msg jsonrpc.Message) (jsonrpc.Message, bool) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return msg, false // a response to a call of the server's
	}
	switch {
	case req.Method == methodInitialize && req.IsCall():
		if s.initSent {
			go s.answerAgain(c, req.ID)
			return nil, false
		}
		if bare(req.Params) {
			req.Params = s.p.params()
		}
		s.initSent = true
		s.remember(req.ID, false)
		return req, false
	case req.Method == methodShutdown:
		if req.IsCall() {
			c.writeResult(req.ID, json.RawMessage("null"))
		}
		return nil, false
	case req.Method == methodExit:
		if req.IsCall() {
			c.writeResult(req.ID, json.RawMessage("null"))
		}
		return nil, true
	}
	if !s.initSent {
		init := &jsonrpc.Request{ID: syntheticID, Method: methodInitialize, Params: s.p.params()}
		s.initSent = true
		s.remember(syntheticID, true)
		if !c.send(init) {
			return nil, false
		}
	}
	if req.Method == methodInitialized {
		if s.initializedSet {
			return nil, false // ours went first; the SDK refuses a second
		}
		s.initializedSet = true
		return req, false
	}
	if !s.initializedSet {
		s.initializedSet = true
		if !c.send(&jsonrpc.Request{Method: methodInitialized, Params: json.RawMessage("{}")}) {
			return nil, false
		}
	}
	return req, false
}

func (s *plainState) remember(id jsonrpc.ID, ours bool) {
	s.mu.Lock()
	s.initIDs[id] = ours
	s.mu.Unlock()
}

// swallow keeps the first initialize answer and reports whether resp
// answers the front's own initialize, which the client never asked for.
func (s *plainState) swallow(resp *jsonrpc.Response) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ours, ok := s.initIDs[resp.ID]
	if !ok {
		return false
	}
	delete(s.initIDs, resp.ID)
	if s.answer == nil {
		s.answer = resp
		close(s.answered)
	}
	return ours
}

// answerAgain answers a repeated initialize with the first answer (result
// or error), once there is one.
func (s *plainState) answerAgain(c *conn, id jsonrpc.ID) {
	select {
	case <-s.answered:
	case <-c.closed:
		return
	}
	s.mu.Lock()
	first := s.answer
	s.mu.Unlock()
	c.writeMessage(&jsonrpc.Response{ID: id, Result: first.Result, Error: first.Error})
}
