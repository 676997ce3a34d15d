package server

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ReconnectAfter is the wait, sent as the SSE retry field, before a client
// whose stream broke resumes it with Last-Event-ID.
const ReconnectAfter = time.Second

// primeEvent opens the priming event the SDK writes first on a resumable
// stream (protocol 2025-11-25 and later, SEP-1699).
var primeEvent = []byte("event: prime\n")

// withRetry adds the retry field to each stream's priming event: the SDK
// sends one only when it closes a stream itself, so a client whose
// connection broke would otherwise guess when to come back.
func withRetry(next http.Handler) http.Handler {
	field := []byte("retry: " + strconv.FormatInt(ReconnectAfter.Milliseconds(), 10) + "\n")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&retryWriter{ResponseWriter: w, field: field}, r)
	})
}

// retryWriter inserts field into the response's first write when that
// write is a priming event; every other write passes through.
type retryWriter struct {
	http.ResponseWriter
	field []byte
	wrote bool
}

func (w *retryWriter) Write(p []byte) (int, error) {
	if w.wrote {
		return w.ResponseWriter.Write(p)
	}
	w.wrote = true
	if !bytes.HasPrefix(p, primeEvent) || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		return w.ResponseWriter.Write(p)
	}
	out := make([]byte, 0, len(p)+len(w.field))
	out = append(append(append(out, primeEvent...), w.field...), p[len(primeEvent):]...)
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap lets http.ResponseController reach the connection's Flush.
func (w *retryWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
