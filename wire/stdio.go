// Package wire is a thin front over the go-sdk's transports. On stdio it
// reads line by line, so a bad or oversized line gets an error answer
// instead of ending the server, and requests in flight at the end of input
// are answered before the process ends. With [Plain] it also serves clients
// that speak plain JSON-RPC without an MCP SDK (seed systems 000 and 004).
// Over HTTP it bounds every connection and, with [Plain], answers one
// JSON-RPC message per POST with a plain JSON body.
package wire

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessage bounds one inbound stdio message: the go-sdk's own
// limit, 16 MiB.
const DefaultMaxMessage = mcp.DefaultMaxLineLength

// DefaultDrain is how long requests in flight at the end of input may take
// to be answered when [Options.Drain] is unset.
const DefaultDrain = 35 * time.Second

// endGrace bounds the wait for handlers that ignore their cancelled context
// once the session is over.
const endGrace = 5 * time.Second

// ErrExit is returned by [Serve] after a plain client's `exit`: the process
// should end with status 0.
var ErrExit = errors.New("the client sent exit")

// Options configure the stdio front.
type Options struct {
	// MaxMessage bounds one message in bytes (0: DefaultMaxMessage). A
	// longer line is read to its end, dropped, and answered with an error.
	MaxMessage int
	// Drain bounds how long requests in flight when input ends may take to
	// be answered (0: DefaultDrain); nothing more is read meanwhile.
	Drain time.Duration
	// Plain also serves plain JSON-RPC clients (nil: MCP clients only).
	Plain *Plain
	// MethodNotFound, when set, is the message of the -32601 answer to a
	// request naming an unknown method, instead of the SDK's
	// `method not found: "X"` (a profile's UnknownMethod).
	MethodNotFound func(method string) string
	// Log gets what the front drops (nil: nothing is logged).
	Log *slog.Logger
}

// Stdio is an [mcp.Transport] over In and Out (default: stdin, stdout),
// one JSON-RPC message per line. Use it once.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Options

	conn *conn
}

// Connect implements [mcp.Transport].
func (t *Stdio) Connect(context.Context) (mcp.Connection, error) {
	in, out := t.In, t.Out
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	o := t.Options
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.Drain <= 0 {
		o.Drain = DefaultDrain
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	c := &conn{
		opts:     o,
		out:      out,
		incoming: make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
		ended:    make(chan struct{}),
		inflight: map[jsonrpc.ID]string{},
		asked:    map[jsonrpc.ID]struct{}{},
		answered: make(chan struct{}, 1),
	}
	if o.Plain != nil {
		c.plain = newPlainState(o.Plain)
	}
	t.conn = c
	go c.readLoop(newLineReader(in, o.MaxMessage))
	return c, nil
}

// Serve runs server over t until input ends (nil), a plain client sends
// exit (ErrExit), or ctx is done (its error). Requests in flight at the end
// of input are answered first, within t.Drain.
func Serve(ctx context.Context, server *mcp.Server, t *Stdio) error {
	ss, err := server.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	var end error
	select {
	case err := <-done:
		return t.result(err)
	case <-t.conn.ended:
	case <-ctx.Done():
		end = ctx.Err()
		go ss.Close()
	}
	select {
	case err := <-done:
		if end != nil {
			return end
		}
		return t.result(err)
	case <-time.After(endGrace):
		if end != nil {
			return end
		}
		return t.result(nil)
	}
}

func (t *Stdio) result(err error) error {
	if t.conn.exited.Load() {
		return ErrExit
	}
	return err
}
