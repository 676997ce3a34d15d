package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
)

// Audit writes one JSON line per tool call (--audit-log). A line names
// the tool, the argument keys and the path-like argument values, never
// the other values: arguments can carry whole file contents and commands
// with secrets, and an audit trail must not become a second copy of them.
type Audit struct {
	mu sync.Mutex
	w  io.WriteCloser
}

// OpenAudit opens path append-only with mode 0600, refusing a symlink (a
// planted link must not redirect the log onto another file) and stdout
// (which carries the stdio transport's JSON-RPC).
func OpenAudit(path string) (*Audit, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %v", err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("audit log: %s is not a regular file", path)
	}
	if so, err := os.Stdout.Stat(); err == nil && os.SameFile(fi, so) {
		f.Close()
		return nil, fmt.Errorf("audit log: %s is stdout, which carries the protocol", path)
	}
	return &Audit{w: f}, nil
}

// NewAudit writes lines to w (tests).
func NewAudit(w io.WriteCloser) *Audit { return &Audit{w: w} }

// Close closes the file.
func (a *Audit) Close() error {
	if a == nil {
		return nil
	}
	return a.w.Close()
}

// AuditEntry is one line of the audit log.
type AuditEntry struct {
	Time       time.Time      `json:"time"`
	Session    string         `json:"session,omitempty"`
	Tool       string         `json:"tool"`
	ArgKeys    []string       `json:"arg_keys"`
	Paths      map[string]any `json:"paths,omitempty"`
	DurationMS float64        `json:"duration_ms"`
	Outcome    string         `json:"outcome"` // ok, isError or protocol error
	Code       int64          `json:"code,omitempty"`
	// Error is the error's kind and the path it concerns (auditError),
	// never its text.
	Error string `json:"error,omitempty"`
}

func (a *Audit) write(e *AuditEntry) {
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.w.Write(append(b, '\n'))
}

// pathKey reports whether an argument names files: its values are logged.
func pathKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"path", "dir", "file", "source", "destination", "root", "cwd", "uri"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// summarize splits raw arguments into their keys and path-like values
// (strings and lists; never objects, which could hold contents).
func summarize(raw json.RawMessage) (keys []string, paths map[string]any) {
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return []string{}, nil
	}
	keys = []string{}
	for k, v := range args {
		keys = append(keys, k)
		if !pathKey(k) {
			continue
		}
		switch v.(type) {
		case string, []any:
			if paths == nil {
				paths = map[string]any{}
			}
			paths[k] = v
		}
	}
	sort.Strings(keys)
	return keys, paths
}

// auditError is what the audit log says of a failed call: the error's
// kind and the path it concerns, never its text, which can quote a
// file's contents (an edit's unmatched old text), a command's output or
// an argument.
func auditError(err error) string {
	if err == nil {
		return ""
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && fault.KindOf(err) == fault.Other {
		return "invalid" // an argument refused; the code says how
	}
	s := fault.KindOf(err).String()
	if p := fault.PathOf(err); p != "" {
		s += ": " + p
	}
	return s
}

// record logs one finished call: at debug level on the log, and as a line
// of the audit log when there is one. cause is the handler's own error
// (nil when it answered, an isError result included).
func (e *Env) record(ctx context.Context, req *mcp.CallToolRequest, start time.Time, res *mcp.CallToolResult, err, cause error) {
	d := time.Since(start)
	outcome, code := "ok", int64(0)
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		outcome, code = "protocol error", rpcErr.Code
	case err != nil:
		outcome = "protocol error"
	case res != nil && res.IsError:
		outcome = "isError"
	case res != nil && len(res.InputRequests) > 0:
		outcome = "input required" // asked the client (roots); its retry is a call of its own
	}
	if cause == nil {
		cause = err
	}
	msg := auditError(cause)
	if e.Log != nil {
		attrs := []any{"tool", req.Params.Name, "duration", d, "outcome", outcome}
		if code != 0 {
			attrs = append(attrs, "code", code)
		}
		e.Log.DebugContext(ctx, "tool call", attrs...)
	}
	if e.Audit == nil {
		return
	}
	entry := &AuditEntry{Time: start.UTC(), Tool: req.Params.Name, DurationMS: float64(d.Microseconds()) / 1000, Outcome: outcome, Code: code, Error: msg}
	if req.Session != nil {
		entry.Session = req.Session.ID()
	}
	entry.ArgKeys, entry.Paths = summarize(req.Params.Arguments)
	e.Audit.write(entry)
}

// audit writes the call's line in the audit log when it ends.
func audit(ctx context.Context, k *call, next func(context.Context)) {
	start := time.Now()
	next(ctx)
	k.env.record(ctx, k.req, start, k.res, k.err, k.cause)
}
