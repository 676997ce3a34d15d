package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Bounds of one HTTP connection. There is no write timeout: an event
// stream (GET /mcp, or a long call's answer) may rightly last for hours.
const (
	// DefaultMaxBody is the largest request body, the go-sdk's own default.
	DefaultMaxBody = 4 << 20
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

// HTTPServer returns an http.Server for h that bounds every connection: the
// headers must come within 10s, a body within DefaultBodyTimeout and
// DefaultMaxBody (else 408 or 413 with a JSON-RPC error), an idle
// keep-alive connection is closed after 2 minutes, and headers are capped
// at 64 KiB.
func HTTPServer(h http.Handler) *http.Server {
	return httpServer(h, httpLimits{maxBody: DefaultMaxBody, bodyTimeout: DefaultBodyTimeout})
}

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
			writeError(w, http.StatusRequestTimeout, nil, codeInvalid, fmt.Sprintf("invalid request: the body did not arrive within %v", l.bodyTimeout))
			return
		}
		rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

func tooLarge(w http.ResponseWriter, max int64) {
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusRequestEntityTooLarge, nil, codeInvalid, fmt.Sprintf("invalid request: the body is over the limit of %d bytes", max))
}

// writeError answers with a JSON-RPC error body.
func writeError(w http.ResponseWriter, status int, id []byte, code int64, msg string) {
	writeJSON(w, status, errorAnswer(id, code, msg))
}

// writeJSON answers with an encoded JSON-RPC message.
func writeJSON(w http.ResponseWriter, status int, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}
