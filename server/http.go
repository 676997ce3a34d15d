package server

import (
	"bytes"
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend/queue"
	"github.com/fsmcp/fsmcp/toolkit"
	"github.com/fsmcp/fsmcp/wire"
)

// HTTPOptions configure the Streamable HTTP endpoint.
type HTTPOptions struct {
	// AuthToken, if set, must come as "Authorization: Bearer <token>".
	AuthToken string
	Log       *slog.Logger
	// SessionIdle closes a session that sent no request for this long,
	// ending its shell and watchers (0: DefaultSessionIdle).
	SessionIdle time.Duration
	// MaxSessions bounds the sessions open at once (0:
	// DefaultMaxSessions); a client that would open one more gets 503.
	MaxSessions int
	// OnExit is called when a plain JSON-RPC client sends exit (only with
	// Config.Plain); it should end the server.
	OnExit func()
}

// DefaultSessionIdle is how long an HTTP session may sit unused before it
// is closed: a client that vanished without ending its session must not
// keep a shell and watchers alive for the life of the server.
const DefaultSessionIdle = 30 * time.Minute

// DefaultMaxSessions bounds the HTTP sessions open at once. A bare session
// costs little, one with its 64 subscriptions and 8 watches some MiB, and
// sessions are otherwise unbounded: 10,000 were once accepted.
const DefaultMaxSessions = 64

// EventStoreBytes bounds the SSE events kept, over all sessions, for
// clients that resume a broken stream.
const EventStoreBytes = 16 << 20

// Handler serves MCP on /mcp (Streamable HTTP) and a liveness probe on
// /healthz. Requests from a browser page of another origin and requests
// whose Host header is not the loopback name they arrived on are refused
// (DNS rebinding).
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	idle := opts.SessionIdle
	if idle <= 0 {
		idle = DefaultSessionIdle
	}
	// A client whose stream broke reconnects with Last-Event-ID and gets
	// what it missed; the store is bounded for the whole server and drops
	// the oldest events first.
	events := mcp.NewMemoryEventStore(nil)
	events.SetMaxBytes(EventStoreBytes)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP }, &mcp.StreamableHTTPOptions{
		Logger:         opts.Log,
		SessionTimeout: idle,
		EventStore:     events,
	})
	max := opts.MaxSessions
	if max <= 0 {
		max = DefaultMaxSessions
	}
	// Handles stand in for sessions on the stateless era: bounded and
	// reaped as sessions are.
	s.deps.Sessions.SetHandleBounds(max, idle)
	stateless := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP }, &mcp.StreamableHTTPOptions{
		Logger:    opts.Log,
		Stateless: true,
	})
	var h http.Handler = readOnce(byEra(capListens(max, stateless), answerDiscover(withRetry(s.capSessions(max, mcpHandler)))))
	if s.cfg.Plain != nil {
		onExit := opts.OnExit
		if !s.httpExit {
			onExit = nil
		}
		h = wire.PlainHTTP(h, s.MCP, s.cfg.Plain, onExit, opts.Log)
	}
	h = checkHost(checkOrigin(queueByClient(h)))
	if opts.AuthToken != "" {
		h = requireBearer(opts.AuthToken, h)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	return mux
}

// byEra serves both eras of the protocol on one endpoint. A request on
// 2026-07-28 or later (its Mcp-Protocol-Version header says so, and it
// names no session, as the go-sdk and TypeScript clients send from
// server/discover on) goes to the stateless handler, the only one the SDK
// serves that protocol with; everything else, the initialize handshake
// and every request of a session it opened, to the stateful one. The
// stateless handler checks Mcp-Method and Mcp-Name against the body.
func byEra(stateless, stateful http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("Mcp-Protocol-Version") >= toolkit.StatelessEra {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

// clientQueue is the search queue (queue.WithOwner) of the requests
// that belong to no session, from one client address.
type clientQueue string

// queueByClient gives a request that names no session (the stateless
// era's, the plain JSON-RPC front's) the search queue of its client's
// address. Each such request is a session of its own to the SDK, and a
// queue per request let a flood of them take every turn: 100 stateless
// greps made one session's single grep wait 4.2 s of a 4.7 s burst. An
// address is not had for free; a port is, so it is left out. A
// session's requests keep their session's queue (queueBySession).
func queueByClient(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" {
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			if err != nil {
				host = r.RemoteAddr
			}
			r = r.WithContext(queue.WithOwner(r.Context(), clientQueue(host)))
		}
		next.ServeHTTP(w, r)
	})
}

// capListens bounds the subscriptions/listen streams open at once on the
// stateless era, as capSessions bounds sessions: each may hold resource
// subscriptions (watchers) for as long as it stays open, and nothing else
// would end it. The stateless era's other requests end with their answer.
func capListens(max int, next http.Handler) http.Handler {
	open := make(chan struct{}, max)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !isListen(r) {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case open <- struct{}{}:
			defer func() { <-open }()
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("Retry-After", "10")
			http.Error(w, fmt.Sprintf("fsmcp already serves %d subscriptions/listen streams, the most allowed (--max-sessions); end one or retry later", max), http.StatusServiceUnavailable)
		}
	})
}

// isListen reports whether r is a subscriptions/listen request, as the
// SDK reads it (readOnce).
func isListen(r *http.Request) bool {
	for _, m := range messagesOf(r) {
		if req, ok := m.(*jsonrpc.Request); ok && req.Method == "subscriptions/listen" {
			return true
		}
	}
	return false
}

// messagesKey is the context key of a POST's messages (readOnce).
type messagesKey struct{}

// readOnce decides once, the way the SDK will (wire.ReadBody), what a
// POST's body holds, for every check in front of the SDK: the listen cap
// decoding with encoding/json, which matches keys in any case, counted a
// body with "METHOD":"ping" beside "method":"subscriptions/listen" as a
// ping, and the SDK opened a listen stream for it. The body stays
// readable; it is already read whole and bounded (httpServer).
func readOnce(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "cannot read the request body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		msgs, _, _ := wire.ReadBody(body) // a body the SDK refuses holds no message
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), messagesKey{}, msgs)))
	})
}

// messagesOf is what readOnce found in r's body.
func messagesOf(r *http.Request) []jsonrpc.Message {
	msgs, _ := r.Context().Value(messagesKey{}).([]jsonrpc.Message)
	return msgs
}

// capSessions answers 503 to a request that would open a session past
// max (a POST without Mcp-Session-Id, the way every session starts);
// requests of open sessions pass. Sessions that are starting count too,
// so a burst of initializes cannot overshoot.
func (s *Server) capSessions(max int, next http.Handler) http.Handler {
	var mu sync.Mutex
	starting := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		n := starting
		for ss := range s.MCP.Sessions() {
			if ss.ID() != "" { // the stateless era's sessions have none, and are capped apart
				n++
			}
		}
		if n >= max {
			mu.Unlock()
			w.Header().Set("Retry-After", "10")
			http.Error(w, fmt.Sprintf("fsmcp already serves %d sessions, the most allowed (--max-sessions); end an idle session (HTTP DELETE) or retry later", max), http.StatusServiceUnavailable)
			return
		}
		starting++
		mu.Unlock()
		// The session is listed by the time its answer starts: from then on
		// it counts there, not as starting (counting it twice until the
		// handler returned refused a client's next session spuriously).
		var once sync.Once
		started := func() {
			once.Do(func() {
				mu.Lock()
				starting--
				mu.Unlock()
			})
		}
		defer started()
		next.ServeHTTP(&answerStarted{ResponseWriter: w, started: started}, r)
	})
}

// answerStarted calls started when the handler first writes its answer.
type answerStarted struct {
	http.ResponseWriter
	started func()
}

func (a *answerStarted) WriteHeader(code int) {
	a.started()
	a.ResponseWriter.WriteHeader(code)
}

func (a *answerStarted) Write(b []byte) (int, error) {
	a.started()
	return a.ResponseWriter.Write(b)
}

// Flush and Unwrap keep streaming working through the wrapper.
func (a *answerStarted) Flush() {
	a.started()
	http.NewResponseController(a.ResponseWriter).Flush()
}

func (a *answerStarted) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// requireBearer refuses requests without the right bearer token, comparing
// in constant time. A wrong token is answered with RFC 6750's
// error="invalid_token", so a client says "bad token" rather than
// starting an OAuth flow fsmcp does not serve; a missing one gets the
// bare challenge, as RFC 6750 §3.1 asks.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			if len(got) == 0 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="fsmcp"`)
				http.Error(w, "missing bearer token: send Authorization: Bearer TOKEN (the token fsmcp printed at start, or --auth-token)", http.StatusUnauthorized)
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="fsmcp", error="invalid_token", error_description="the bearer token is wrong"`)
			http.Error(w, "wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkOrigin refuses a request from a browser page (it has an Origin
// header) unless the page is on loopback or is the server's own origin: a
// web site must not drive a file server. Non-browser clients send no
// Origin. checkHost, in front of it, refuses a loopback request whose Host
// is not a loopback name (DNS rebinding).
func checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && !isLoopbackOrigin(origin) && !sameOrigin(origin, r.Host) {
			http.Error(w, "origin not allowed", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkHost refuses a request that arrived on a loopback address with a
// Host that is not a loopback name (DNS rebinding: a page of evil.example
// whose name now resolves to 127.0.0.1), before any method is looked at.
// The SDK checks the same, but only for what reaches it: the plain front
// answers exit and shutdown itself, and a rebinding page's Origin matches
// its own Host.
func checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
			if loopbackHost(local.String()) && !loopbackHost(r.Host) {
				http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether host[:port] names this machine: localhost
// or a loopback address.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	return strings.EqualFold(host, "localhost") || isLoopbackAddr(host)
}

func sameOrigin(origin, host string) bool {
	rest, ok := strings.CutPrefix(origin, "http://")
	if !ok {
		rest, ok = strings.CutPrefix(origin, "https://")
	}
	return ok && host != "" && strings.EqualFold(rest, host)
}

func isLoopbackAddr(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isLoopbackOrigin(origin string) bool {
	rest, ok := strings.CutPrefix(origin, "http://")
	if !ok {
		rest, ok = strings.CutPrefix(origin, "https://")
	}
	if !ok {
		return false
	}
	host := rest
	if h, _, err := net.SplitHostPort(rest); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	return host == "localhost" || isLoopbackAddr(host)
}
