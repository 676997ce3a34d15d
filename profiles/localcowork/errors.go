package localcowork

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

// The original's codes (mcp-base.ts ErrorCodes).
const (
	codeInvalidParams = jsonrpc.CodeInvalidParams // -32602
	codeInternal      = jsonrpc.CodeInternalError // -32603
	codeSandbox       = -32001
	codeNotFound      = -32003
	codePermission    = -32004
)

// argError words the runtime's argument errors as the original's zod
// failures: -32602 "Invalid parameters: ...", missing ones as zod says
// them ("path: Required").
func argError(err error) error {
	var ae *toolkit.ArgError
	if !errors.As(err, &ae) {
		return err
	}
	msg := ae.Detail()
	if ae.Reason == toolkit.Missing {
		names := make([]string, len(ae.Missing))
		for i, n := range ae.Missing {
			names[i] = n + ": Required"
		}
		msg = strings.Join(names, "; ")
	}
	return toolkit.RPCError(codeInvalidParams, "Invalid parameters: %s", msg)
}

func unknownTool(name string) error {
	return toolkit.RPCError(jsonrpc.CodeMethodNotFound, "Unknown tool: %s", name)
}

// resolve contains one path parameter (the table's rule: absolute) and
// words a refusal as the original does, naming the parameter: a relative
// or empty path or a NUL byte is -32602 (the original: -32603), outside
// the roots -32001 (the original: -32603, its sandbox error not being an
// MCPError).
func resolve(c *toolkit.Call, param, path string) (*sandbox.Path, error) {
	p, err := c.Resolve(path)
	switch fault.KindOf(err) {
	case fault.NULInPath:
		return nil, toolkit.RPCError(codeInvalidParams, "Parameter %q contains a NUL byte", param)
	case fault.NotAbsolute, fault.NoPath:
		return nil, toolkit.RPCError(codeInvalidParams, "Parameter %q must be an absolute path. Got: %q", param, path)
	}
	if err != nil {
		return nil, mapErr(err, path, "")
	}
	return p, nil
}

// outside is the original's sandbox sentence, with its right code.
func outside(path string) error {
	return toolkit.RPCError(codeSandbox, "Path %q is outside the sandboxed directories", filepath.Clean(path))
}

// mapErr maps a core error about path to the original's codes; notFound
// is the tool's own not-found sentence ("Directory not found: X"), "" for
// the core's.
func mapErr(err error, path, notFound string) error {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return rpc
	}
	switch fault.KindOf(err) {
	case fault.Outside:
		return outside(path)
	case fault.NotFound:
		if notFound == "" {
			notFound = err.Error()
		}
		return toolkit.RPCError(codeNotFound, "%s", notFound)
	case fault.NotDir:
		return toolkit.RPCError(codeInvalidParams, "Not a directory: %s", path)
	case fault.IsDir:
		return toolkit.RPCError(codeInvalidParams, "Not a file: %s", path)
	case fault.Invalid, fault.TooLarge, fault.Binary, fault.Exists, fault.NoPath, fault.NULInPath, fault.NotAbsolute, fault.NotRelative:
		return toolkit.RPCError(codeInvalidParams, "%s", err.Error())
	case fault.Permission:
		return toolkit.RPCError(codePermission, "Permission denied: %s", path)
	}
	return toolkit.RPCError(codeInternal, "Internal error: %s", err.Error())
}
