// Package peekaboo is the peekaboo profile: a stand-in for peekaboo-mcp
// 1.0.0 (seed 001). Its surface is the project's files as MCP resources
// (resources/list with peekaboo's metadata, resources/read of absolute and
// relative file:// URIs) and two tools, search_path and search_content,
// with peekaboo's texts and error codes. The work is fsmcp's core: the
// sandbox, the resource pages, the search backend.
package peekaboo

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/toolkit"
)

// Name is the profile's name for --profile.
const Name = "peekaboo"

// peekaboo's own identity and defaults.
const (
	serverName    = "peekaboo-mcp"
	serverVersion = "1.0.0"
	defaultDepth  = 10 // PEEKABOO_MAX_DEPTH: levels below the top one
	resourcePage  = 10000
)

// JSON-RPC codes peekaboo answers with.
const (
	codeInvalidRequest int64 = -32600
	codeNotFound       int64 = -32001 // the document's "File Not Found"
)

// Table is the peekaboo profile. The listing depth comes from the
// environment when the server starts (PEEKABOO_RECURSIVE,
// PEEKABOO_MAX_DEPTH; see Levels).
func Table() *toolkit.Table {
	levels := defaultDepth + 1
	return &toolkit.Table{
		Name:  Name,
		Tools: []toolkit.Tool{SearchPath(), SearchContent()},
		Resources: &toolkit.ResourceShape{
			Always: true,
			DepthFrom: func(getenv func(string) string) int {
				levels = Levels(getenv)
				return levels
			},
			PageSize: resourcePage,
			MIME:     mimeOf,
			Path:     uriPath,
			Errors:   resourceError,
			List:     func(res *mcp.ListResourcesResult) mcp.Result { return withMetadata(res, levels) },
		},
		Arguments: toolkit.Arguments{
			Paths:     toolkit.Absolute,
			ExtraArgs: toolkit.IgnoreExtra,
		},
		Handshake: toolkit.Handshake{
			Initialize: identify,
		},
		Wording: toolkit.Wording{
			Errors:      toolError,
			UnknownTool: func(name string) error { return toolkit.RPCError(jsonrpc.CodeMethodNotFound, "Unknown tool: %s", name) },
		},
		Listing: toolkit.Listing{
			// Both: its files are resources, which no host defers; these two
			// are how a model finds them (docs/profiles.md, "Loaded up front").
			Upfront: []string{"search_path", "search_content"},
		},
	}
}

// Levels is how many directory levels resources/list shows: peekaboo
// lists the root's entries (depth 0) and recurses while depth <
// PEEKABOO_MAX_DEPTH, so 10 gives 11 levels; PEEKABOO_RECURSIVE=false
// gives the root's entries only. The depth is read as JavaScript's
// parseInt reads it (leading digits); one that is not a number stops the
// recursion, as in peekaboo.
func Levels(getenv func(string) string) int {
	if getenv("PEEKABOO_RECURSIVE") == "false" {
		return 1
	}
	depth := defaultDepth
	if v := getenv("PEEKABOO_MAX_DEPTH"); v != "" {
		n, ok := parseInt(v)
		if !ok || n < 0 {
			return 1
		}
		depth = n
	}
	return depth + 1
}

// parseInt reads a leading decimal integer after optional spaces, as
// JavaScript's parseInt does; ok is false where parseInt gives NaN.
func parseInt(s string) (int, bool) {
	s = strings.TrimLeft(s, " \t\n\r")
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	digits := end
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == digits {
		return 0, false
	}
	n, err := strconv.Atoi(s[:end])
	if err != nil { // more digits than an int holds: as deep as can be
		return 1 << 20, s[0] != '-'
	}
	return n, true
}

// identify answers initialize as peekaboo-mcp 1.0.0 (and the 2026-07-28
// protocol's server/discover, where serverInfo sits in _meta).
func identify(res mcp.Result) mcp.Result {
	return toolkit.ReshapeServerInfo(res, func(info map[string]any) {
		info["name"], info["version"] = serverName, serverVersion
	})
}

// timedOut is peekaboo's timeout answer for an operation.
func timedOut(op string, limit time.Duration) error {
	return toolkit.RPCError(jsonrpc.CodeInternalError, "Operation '%s' timed out after %dms", op, limit.Milliseconds())
}

// toolError is what peekaboo answers for a tool's failure: its own coded
// errors as they are, anything else -32603 "Tool execution failed: …".
func toolError(err error) error {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return rpc
	}
	return toolkit.RPCError(jsonrpc.CodeInternalError, "Tool execution failed: %v", err)
}
