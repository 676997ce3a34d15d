package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
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
			writeJSON(w, http.StatusBadRequest, answer)
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
			writeJSON(w, http.StatusOK, data)
			return
		case req.Method == methodInitialize && bare(req.Params):
			req.Params = p.params()
			body, _ = jsonrpc.EncodeMessage(req)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if !req.IsCall() {
			// A notification gets 202 and no body, whatever the SDK
			// thinks of it (it refuses one it does not know with 400).
			stateless.ServeHTTP(discard{h: http.Header{}}, r)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		// The SDK refuses a method it does not know with a 400 and a line
		// of text before any JSON-RPC: a plain client reads -32601 instead,
		// as on stdio.
		rec := &recorder{h: w.Header(), status: http.StatusOK}
		stateless.ServeHTTP(rec, r)
		if rec.status == http.StatusBadRequest && strings.HasPrefix(rec.body.String(), "JSON RPC not handled") {
			data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %q", req.Method)}})
			w.Header().Del("X-Content-Type-Options")
			writeJSON(w, http.StatusOK, data)
			return
		}
		w.WriteHeader(rec.status)
		w.Write(rec.body.Bytes())
	})
}

// recorder keeps the SDK's answer to a plain call, so a refusal can be
// rewritten before it goes out.
type recorder struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.status = code }

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

// discard is a ResponseWriter that drops the answer to a notification.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}

// DefaultMaxBody is the largest request body, the go-sdk's own default:
// the plain front's bound, and the HTTP server's (package server).
const DefaultMaxBody = 4 << 20

func tooLarge(w http.ResponseWriter, max int64) {
	w.Header().Set("Connection", "close")
	WriteError(w, http.StatusRequestEntityTooLarge, codeInvalid, fmt.Sprintf("invalid request: the body is over the limit of %d bytes", max))
}

// WriteError answers with a JSON-RPC error body of code (id null): for
// requests refused before any message was read from them.
func WriteError(w http.ResponseWriter, status int, code int64, msg string) {
	writeJSON(w, status, errorAnswer(nil, code, msg))
}

// CodeInvalidRequest is the JSON-RPC code of a body that is no request.
const CodeInvalidRequest = codeInvalid

// writeJSON answers with an encoded JSON-RPC message.
func writeJSON(w http.ResponseWriter, status int, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}
