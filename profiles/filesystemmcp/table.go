// Package filesystemmcp is the filesystem-mcp profile: a stand-in for the
// Filesystem MCP server (sylphlab/shtse8, seed 003). Its twelve batch
// tools take paths relative to the project root (the first allowed
// directory), refuse absolute ones, and answer JSON.stringify(…, null, 2)
// text with a result per item. The work is fsmcp's core: the sandbox,
// atomic writes, the search engine.
package filesystemmcp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

// Name is the profile's name for --profile.
const Name = "filesystem-mcp"

// Table is the filesystem-mcp profile.
func Table() *toolkit.Table {
	return &toolkit.Table{
		Name:  Name,
		Tools: tools(),
		Arguments: toolkit.Arguments{
			Paths:     toolkit.RelativeOnly,
			ExtraArgs: toolkit.RefuseExtra, // its Zod schemas are .strict()
		},
		Handshake: toolkit.Handshake{
			Initialize: func(res mcp.Result) mcp.Result {
				return toolkit.ReshapeServerInfo(res, func(info map[string]any) {
					info["name"], info["version"], info["description"] = serverName, serverVersion, serverDescription
				})
			},
		},
		Wording: toolkit.Wording{
			Errors:      protocolError,
			UnknownTool: func(name string) error { return toolkit.RPCError(jsonrpc.CodeMethodNotFound, "Unknown tool: %s", name) },
		},
		Listing: toolkit.Listing{
			// Its everyday tools: list, read, write, search contents and
			// replace (its edit); docs/profiles.md, "Loaded up front".
			Upfront: []string{"list_files", "read_content", "write_content", "search_files", "replace_content"},
		},
	}
}

// The original's serverInfo (src/index.ts at v0.4.13: the version it
// sends is 0.4.0, not the package's).
const (
	serverName        = "filesystem-mcp"
	serverVersion     = "0.4.0"
	serverDescription = "MCP Server for filesystem operations relative to the project root."
)

// tools are the twelve, in the original's order; their schemas state the
// original's zod .default() values as zod-to-json-schema writes them
// (advertise tags).
func tools() []toolkit.Tool {
	return []toolkit.Tool{
		ListFiles(), StatItems(), ReadContent(), WriteContent(), DeleteItems(), CreateDirectories(),
		ChmodItems(), ChownItems(), MoveItems(), CopyItems(), SearchFiles(), ReplaceContent(),
	}
}

// Path refusals, in the original's words.
var (
	errAbsolute  = toolkit.RPCError(jsonrpc.CodeInvalidParams, "Absolute paths are not allowed.")
	errTraversal = toolkit.RPCError(jsonrpc.CodeInvalidRequest, "Path traversal detected. Access denied.")
)

// invalidArgs is the original's Zod refusal: -32602 "Invalid arguments:
// field (reason)".
func invalidArgs(field, reason string) error {
	return toolkit.RPCError(jsonrpc.CodeInvalidParams, "Invalid arguments: %s (%s)", field, reason)
}

// protocolError is what a failed call answers: its coded errors as they
// are (a schema refusal worded as Zod's "Invalid arguments: …"), anything
// else -32603.
func protocolError(err error) error {
	var ae *toolkit.ArgError
	if errors.As(err, &ae) {
		if ae.Reason == toolkit.WrongType && len(ae.Want) == 1 {
			return invalidArgs(ae.Field, fmt.Sprintf("Expected %s, received %s", zodTypeName(ae.Want[0]), zodTypeName(ae.Got)))
		}
		return toolkit.RPCError(jsonrpc.CodeInvalidParams, "Invalid arguments: %s", ae.Detail())
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return rpc
	}
	return toolkit.RPCError(jsonrpc.CodeInternalError, "%s", err.Error())
}

// zodTypeName is Zod's name for a JSON type: it has no "integer".
func zodTypeName(t string) string {
	if t == "integer" {
		return "number"
	}
	return t
}

// resolve is the original's resolvePath over fsmcp's sandbox: the table's
// rule (toolkit.RelativeOnly) takes a path relative to the project root
// (the first allowed directory); this words its refusals as the original
// does: absolute ones with -32602, escapes (by "..", a prefix sibling or
// a symlink) with -32600. Batch tools show them per item, so they are
// worded here rather than in Errors.
func resolve(c *toolkit.Call, rel string) (*sandbox.Path, error) {
	p, err := c.Resolve(rel)
	switch fault.KindOf(err) {
	case fault.NotRelative:
		return nil, errAbsolute
	case fault.NULInPath:
		return nil, toolkit.RPCError(jsonrpc.CodeInvalidParams, "Path must not contain NUL bytes.")
	case fault.Outside:
		return nil, errTraversal
	}
	return p, err
}

// itemError is an error as a batch item shows it: a coded error as the
// TypeScript SDK's McpError prints it ("MCP error -32602: …").
func itemError(err error) (string, bool) {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return fmt.Sprintf("MCP error %d: %s", rpc.Code, rpc.Message), true
	}
	return "", false
}

// jsonText is JSON.stringify(v, null, 2) as one text content.
func jsonText(v any) (*mcp.CallToolResult, error) {
	s, err := toolkit.IndentedJSON(v)
	if err != nil {
		return nil, err
	}
	return toolkit.Text(s), nil
}

// slash writes a path with forward slashes, as the original echoes them.
func slash(p string) string { return strings.ReplaceAll(p, `\`, "/") }

// nonEmpty is Zod's .min(1) on an array.
func nonEmpty[T any](field, what string, list []T) error {
	if len(list) == 0 {
		return invalidArgs(field, what+" array cannot be empty")
	}
	return nil
}
