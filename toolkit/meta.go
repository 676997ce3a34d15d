package toolkit

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/sandbox"
)

// MetaAllowedDirs is the _meta key through which a host (fsMCP's Relay
// convention) scopes one call to some directories.
const MetaAllowedDirs = "allowed_dirs"

// sandboxFor returns the sandbox in force for a call when it has
// _meta.allowed_dirs (SPEC §2): with no root at all (no DIR, no client
// roots) the list is the allowed set; with roots it adds to them when
// TrustMeta (stdio, or --trust-meta) and otherwise only narrows them.
func (e *Env) sandboxFor(base *sandbox.Sandbox, req *mcp.CallToolRequest) (*sandbox.Sandbox, error) {
	raw, ok := req.Params.Meta[MetaAllowedDirs]
	if !ok || raw == nil {
		return base, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("_meta.allowed_dirs must be an array of absolute paths")
	}
	dirs := make([]string, 0, len(list))
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("_meta.allowed_dirs must be an array of absolute paths")
		}
		dirs = append(dirs, s)
	}
	if e.TrustMeta || len(base.Roots()) == 0 {
		return base.Extend(dirs)
	}
	return base.Narrow(dirs)
}
