package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// conn is the front's [mcp.Connection].
type conn struct {
	opts  Options
	out   io.Writer
	plain *plainState

	writeMu sync.Mutex

	// incoming carries the messages for the SDK, in order; the read loop
	// closes it when input ends.
	incoming  chan jsonrpc.Message
	closed    chan struct{}
	closeOnce sync.Once
	ended     chan struct{} // Read has reported the end of input
	endOnce   sync.Once
	readErr   error       // set before incoming is closed
	exited    atomic.Bool // the client sent exit

	mu       sync.Mutex
	inflight map[jsonrpc.ID]string   // calls read and not yet answered: their method
	asked    map[jsonrpc.ID]struct{} // the server's calls not yet answered
	answered chan struct{}           // a call in flight was answered
}

func (c *conn) SessionID() string { return "" }

// Read implements [mcp.Connection]. At the end of input it waits, within
// Drain, for the calls in flight to be answered before reporting io.EOF:
// the SDK cancels them and stops writing as soon as Read fails.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg, ok := <-c.incoming:
		if ok {
			c.mu.Lock()
			switch m := msg.(type) {
			case *jsonrpc.Request:
				if m.IsCall() {
					c.inflight[m.ID] = m.Method
				}
			case *jsonrpc.Response:
				delete(c.asked, m.ID)
			}
			c.mu.Unlock()
			return msg, nil
		}
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// The client can no longer answer the server's own calls (roots/list):
	// fail them, so that the calls in flight waiting on them go on.
	if id, ok := c.takeAsked(); ok {
		return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the client's input ended"}}, nil
	}
	c.drain()
	c.endOnce.Do(func() { close(c.ended) })
	if c.readErr != nil {
		return nil, c.readErr
	}
	return nil, io.EOF
}

// takeAsked removes one of the server's unanswered calls.
func (c *conn) takeAsked() (jsonrpc.ID, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id := range c.asked {
		delete(c.asked, id)
		return id, true
	}
	return jsonrpc.ID{}, false
}

// drain waits for the calls in flight to be answered, within Drain.
func (c *conn) drain() {
	timer := time.NewTimer(c.opts.Drain)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n := len(c.inflight)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-timer.C:
			c.opts.Log.Warn("input ended; calls still running are cancelled", "calls", n, "waited", c.opts.Drain)
			return
		case <-c.closed:
			return
		}
	}
}

// Write implements [mcp.Connection].
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.asked[req.ID] = struct{}{}
		c.mu.Unlock()
	}
	resp, isResp := msg.(*jsonrpc.Response)
	if isResp && c.opts.MethodNotFound != nil {
		resp = c.reword(resp)
		msg = resp
	}
	if isResp && c.plain != nil && c.plain.swallow(resp) {
		c.settle(resp.ID)
		return nil
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %v", err)
	}
	err = c.writeLine(data)
	if isResp {
		c.settle(resp.ID)
	}
	return err
}

// reword gives the SDK's answer to an unknown method (-32601
// `method not found: "X"`) the message Options.MethodNotFound chooses.
func (c *conn) reword(resp *jsonrpc.Response) *jsonrpc.Response {
	var rpc *jsonrpc.Error
	if resp.Error == nil || !errors.As(resp.Error, &rpc) || rpc.Code != jsonrpc.CodeMethodNotFound {
		return resp
	}
	c.mu.Lock()
	method, ok := c.inflight[resp.ID]
	c.mu.Unlock()
	// The SDK wraps its -32601 error; the message on the wire is the
	// wrapper's.
	if !ok || resp.Error.Error() != fmt.Sprintf("method not found: %q", method) {
		return resp
	}
	r := *resp
	r.Error = &jsonrpc.Error{Code: rpc.Code, Message: c.opts.MethodNotFound(method)}
	return &r
}

// settle marks a call answered.
func (c *conn) settle(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.inflight, id)
	c.mu.Unlock()
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

// writeMessage encodes msg and writes it as one line.
func (c *conn) writeMessage(msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %v", err)
	}
	return c.writeLine(data)
}

func (c *conn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close implements [mcp.Connection]. Input is not closed: a read of stdin
// cannot be interrupted, and the process ends soon after.
func (c *conn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// send hands a message to the SDK; false once the connection is closed.
func (c *conn) send(msg jsonrpc.Message) bool {
	select {
	case c.incoming <- msg:
		return true
	case <-c.closed:
		return false
	}
}

// readLoop reads input line by line until its end, an exit, or Close.
func (c *conn) readLoop(lr *lineReader) {
	defer close(c.incoming)
	for {
		line, tooLong, err := lr.next()
		if err != nil {
			if err != io.EOF {
				c.readErr = fmt.Errorf("reading input: %w", err)
			}
			return
		}
		if tooLong {
			c.opts.Log.Warn("dropped a message over the size limit", "limit", c.opts.MaxMessage)
			c.writeLine(errorAnswer(idOf(line), codeInvalid, fmt.Sprintf("invalid request: the message is over the limit of %d bytes", c.opts.MaxMessage)))
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		msg, answer := decode(line)
		if answer != nil {
			c.opts.Log.Debug("answered a bad line", "answer", string(answer))
			c.writeLine(answer)
			continue
		}
		if c.plain != nil {
			var stop bool
			msg, stop = c.plain.filter(c, msg)
			if stop {
				c.exited.Store(true)
				return
			}
			if msg == nil {
				continue
			}
		}
		if !c.send(msg) {
			return
		}
	}
}

// writeResult answers a call on the SDK's behalf.
func (c *conn) writeResult(id jsonrpc.ID, result json.RawMessage) {
	c.writeMessage(&jsonrpc.Response{ID: id, Result: result})
}
