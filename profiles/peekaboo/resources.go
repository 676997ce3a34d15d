package peekaboo

import (
	"errors"
	"net/url"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

// Resource refusals, in peekaboo's words.
const (
	msgScheme    = "Only file:// URIs are supported"
	msgTraversal = "Access denied: Path traversal attempt detected"
)

// traversal matches what peekaboo refuses outright in a URI's path: "..",
// "..." and NUL anywhere a segment could be, percent-encoded dots, and
// Windows drive paths.
var traversal = regexp.MustCompile(`(?i)(^|[/\\])\.\.([/\\]|$)|\.\.\.|\x00|%2e%2e|%00|^[a-z]:[/\\]`)

// uriPath maps a resources/read URI to a path. peekaboo takes everything
// after "file://" as a path relative to its root; it refuses a leading
// "/", and so the absolute URIs its own resources/list gives. fsmcp
// accepts both: file:///abs/path (contained by the server like any path)
// and file://rel/path.
func uriPath(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, "file://")
	if !ok {
		return "", toolkit.RPCError(codeInvalidRequest, msgScheme)
	}
	if traversal.MatchString(rest) {
		return "", toolkit.RPCError(codeInvalidRequest, msgTraversal)
	}
	// resources/list percent-encodes what a URI path must; a path that
	// does not decode is taken as written.
	if dec, err := url.PathUnescape(rest); err == nil {
		rest = dec
	}
	if traversal.MatchString(rest) {
		return "", toolkit.RPCError(codeInvalidRequest, msgTraversal)
	}
	if rest == "" {
		rest = "."
	}
	return rest, nil
}

// resourceError gives a failed resources/read peekaboo's answer: outside
// the root is the traversal refusal; not found -32001 and too large
// -32600, the codes its document shows; the rest -32603 "Failed to read
// file: …" as peekaboo words them.
func resourceError(err error) error {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return rpc
	}
	where := fault.PathOf(err)
	var big *sandbox.TooLargeError
	switch {
	case errors.As(err, &big):
		return toolkit.RPCError(codeInvalidRequest, "File '%s' size (%d bytes) exceeds maximum allowed size (%d bytes)", big.Path, big.Size, big.Max)
	case fault.KindOf(err) == fault.Outside:
		return toolkit.RPCError(codeInvalidRequest, msgTraversal)
	case fault.KindOf(err) == fault.NotFound:
		return toolkit.RPCError(codeNotFound, "Failed to read file: File not found: %s", where)
	case fault.KindOf(err) == fault.IsDir:
		return toolkit.RPCError(jsonrpc.CodeInternalError, "Failed to read file: Cannot read directory as file: %s", where)
	}
	return toolkit.RPCError(jsonrpc.CodeInternalError, "Failed to read file: %v", err)
}

// withMetadata gives each listed resource peekaboo's shape: metadata
// {type, size, hasChildren} at the top level, type "file" for anything
// that is not a directory, and hasChildren only on the directories the
// listing went into (peekaboo sets it from the children it listed, so
// files and the directories of the deepest level have none). levels is
// the listing depth.
func withMetadata(res *mcp.ListResourcesResult, levels int) mcp.Result {
	return toolkit.Reshape(res, func(m map[string]any) {
		list, _ := m["resources"].([]any)
		for _, v := range list {
			r, ok := v.(map[string]any)
			if !ok {
				continue
			}
			meta, _ := r["_meta"].(map[string]any)
			delete(r, "_meta")
			delete(r, "size")
			md := map[string]any{"type": "file", "size": meta["size"]}
			if meta["type"] == "directory" {
				md["type"] = "directory"
				name, _ := r["name"].(string)
				if strings.Count(name, "/") < levels {
					md["hasChildren"] = meta["hasChildren"] == true
				}
			}
			r["metadata"] = md
		}
	})
}
