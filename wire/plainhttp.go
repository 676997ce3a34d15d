package wire

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PlainHTTP serves plain JSON-RPC clients on the endpoint std serves (the
// catalog's HTTP clients): one message per POST, a JSON body back rather
// than an event stream, 202 and no body for a notification, 400 with a
// -32700 body for a body that is not JSON, `initialize` without params,
// calls without initialize, `shutdown` answered null, and `exit` (202, then
// onExit, which should end the server). A POST is taken as plain when it
// names no MCP session and does not accept an event stream, which every
// MCP client must; everything else goes to std unchanged.
func PlainHTTP(std http.Handler, server *mcp.Server, p *Plain, onExit func(), log *slog.Logger) http.Handler {
	stateless := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		Logger:       log,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" || acceptsStream(r) {
			std.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, DefaultMaxBody))
		if err != nil {
			tooLarge(w, DefaultMaxBody)
			return
		}
		msg, answer := decode(body)
		if answer != nil {
			status := http.StatusBadRequest
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(answer)
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			w.WriteHeader(http.StatusAccepted) // a response: no server call is open over plain HTTP
			return
		}
		switch {
		case req.Method == methodExit:
			w.WriteHeader(http.StatusAccepted)
			if onExit != nil {
				onExit()
			}
			return
		case req.Method == methodShutdown && req.IsCall():
			data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage("null")})
			w.Header().Set("Content-Type", "application/json")
			w.Write(data)
			return
		case req.Method == methodInitialize && (len(req.Params) == 0 || string(req.Params) == "null"):
			req.Params = p.params()
			body, _ = jsonrpc.EncodeMessage(req)
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		stateless.ServeHTTP(w, r)
	})
}

// acceptsStream reports whether the client accepts an event stream.
func acceptsStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			if mt == "text/event-stream" || mt == "text/*" {
				return true
			}
		}
	}
	return false
}
