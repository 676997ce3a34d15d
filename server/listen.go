package server

// HTTP serving lives in this package, all of it: the listener and its
// connection bounds and the banner with the URL and token (this file), the
// handler with its auth, Origin and Host checks, the session cap and the
// routing of the two protocol eras (http.go, discover.go), and the
// shutdown. main only calls ListenAndServe; package wire keeps the plain
// JSON-RPC front, a framing like stdio's.

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/fsmcp/fsmcp/wire"
)

// ServeOptions are what serving Streamable HTTP needs besides the server.
type ServeOptions struct {
	Addr string // host:port to listen on
	// AuthToken is the bearer token clients must send; empty makes one for
	// the run and prints it on Banner, unless NoAuth.
	AuthToken string
	NoAuth    bool
	// MaxSessions and SessionIdle bound sessions, and the handles of the
	// stateless era alike (HTTPOptions).
	MaxSessions int
	SessionIdle time.Duration
	Log         *slog.Logger
	// Banner gets the made token and where to connect (stderr).
	Banner io.Writer
}

// ListenAndServe serves Streamable HTTP on o.Addr until ctx ends (or a
// plain client's exit ends it), then closes the sessions' state and shuts
// down: nil on such an end.
func (s *Server) ListenAndServe(ctx context.Context, o ServeOptions) error {
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	url, where := clientURL(ln.Addr().String())
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	token := o.AuthToken
	switch {
	case o.NoAuth:
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			o.Log.Warn("listening beyond loopback with --no-auth: anyone who can reach this address can use the files", "addr", ln.Addr().String())
		}
	case token == "":
		// Any local process, another server's sandboxed shell included, can
		// reach a loopback port: make a token, as Jupyter does.
		token = rand.Text()
		fmt.Fprintf(o.Banner, "fsmcp: HTTP clients of %s must send this header (a token made for this run;\n"+
			"fsmcp: --auth-token or FSMCP_AUTH_TOKEN sets one, --no-auth serves without):\n"+
			"fsmcp:     Authorization: Bearer %s\n", url, token)
		if where != "" {
			fmt.Fprintf(o.Banner, "fsmcp: (%s)\n", where)
		}
	}
	// A plain client's exit (catalog profile) ends the server.
	ctx, exit := context.WithCancel(ctx)
	defer exit()
	hs := httpServer(s.Handler(HTTPOptions{AuthToken: token, Log: o.Log, OnExit: exit,
		MaxSessions: o.MaxSessions, SessionIdle: o.SessionIdle}), httpLimits{maxBody: wire.DefaultMaxBody, bodyTimeout: DefaultBodyTimeout})
	endStreams := endStreamsOnShutdown(hs)
	o.Log.Info("serving Streamable HTTP", "url", url)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		// End the sessions' state first: fs_bash commands still running
		// are killed at once instead of holding up the shutdown.
		s.Close()
		endStreams()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return hs.Shutdown(shutdownCtx)
	}
}

// clientURL is the /mcp address to print for a listener on addr. A
// listener on every interface (0.0.0.0, [::], as in the image) has no
// address a client can use as is: the loopback one is printed, with a
// note saying what to use from elsewhere (in a container, the host port
// mapped to this one).
func clientURL(addr string) (url, note string) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + "/mcp", ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return "http://" + net.JoinHostPort("127.0.0.1", port) + "/mcp",
			fmt.Sprintf("listening on every interface (%s): from another machine use this one's address; in a container, the host's address and the port mapped to %s", addr, port)
	}
	return "http://" + addr + "/mcp", ""
}

// endStreamsOnShutdown gives every request of hs a context that the
// returned func cancels: an open SSE stream (a client's GET /mcp) never
// ends by itself, so a graceful Shutdown would wait for it until its
// deadline and report a normal stop as an error.
func endStreamsOnShutdown(hs *http.Server) (endStreams func()) {
	ctx, cancel := context.WithCancel(context.Background())
	hs.BaseContext = func(net.Listener) context.Context { return ctx }
	return cancel
}

// Bounds of one HTTP connection. There is no write timeout: an event
// stream (GET /mcp, or a long call's answer) may rightly last for hours.
const (
	// DefaultBodyTimeout is how long a client may take to send a body.
	DefaultBodyTimeout = 30 * time.Second
	headerTimeout      = 10 * time.Second
	idleTimeout        = 2 * time.Minute
	maxHeaderBytes     = 64 << 10
)

// httpLimits are the bounds a test may shorten.
type httpLimits struct {
	maxBody     int64
	bodyTimeout time.Duration
}

// httpServer returns an http.Server for h that bounds every connection:
// the headers must come within 10s, a body within bodyTimeout and maxBody
// (else 408 or 413 with a JSON-RPC error), an idle keep-alive connection
// is closed after 2 minutes, and headers are capped at 64 KiB.
func httpServer(h http.Handler, l httpLimits) *http.Server {
	return &http.Server{
		Handler:           bounded(h, l),
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// bounded reads a request's body whole, under a read deadline, before next
// sees it. The deadline is lifted once the body is in: a whole-request
// ReadTimeout would also cut the long event streams that follow (net/http
// keeps reading the connection to notice the client leaving).
func bounded(next http.Handler, l httpLimits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		// The deadline stays on a refused body: net/http reads what is left
		// of it after the handler, and a slow client must not hold that.
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Now().Add(l.bodyTimeout))
		if r.ContentLength > l.maxBody {
			tooLarge(w, l.maxBody)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, l.maxBody))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				tooLarge(w, l.maxBody)
				return
			}
			w.Header().Set("Connection", "close")
			wire.WriteError(w, http.StatusRequestTimeout, wire.CodeInvalidRequest, fmt.Sprintf("invalid request: the body did not arrive within %v", l.bodyTimeout))
			return
		}
		rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

func tooLarge(w http.ResponseWriter, max int64) {
	w.Header().Set("Connection", "close")
	wire.WriteError(w, http.StatusRequestEntityTooLarge, wire.CodeInvalidRequest, fmt.Sprintf("invalid request: the body is over the limit of %d bytes", max))
}
