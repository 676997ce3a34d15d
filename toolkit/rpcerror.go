package toolkit

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// RPCError is a JSON-RPC error with a profile's own code and message, for
// the originals that answer with coded errors.
func RPCError(code int64, format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// keepMessage protects a profile's -32601 error from the SDK, which
// rewrites any handler error that errors.Is -32601 into its own
// `method not found: "tools/call"`: peekaboo's clients read
// `Unknown tool: X` there. The wrapper is not a *jsonrpc.Error to errors.Is
// (no Unwrap) but still yields its code to errors.As, which is how the SDK
// writes the response.
func keepMessage(err error) error {
	if rpc, ok := err.(*jsonrpc.Error); ok && rpc.Code == jsonrpc.CodeMethodNotFound {
		return &codedError{rpc}
	}
	return err
}

type codedError struct{ rpc *jsonrpc.Error }

func (e *codedError) Error() string { return e.rpc.Message }

func (e *codedError) As(target any) bool {
	if p, ok := target.(**jsonrpc.Error); ok {
		*p = e.rpc
		return true
	}
	return false
}
