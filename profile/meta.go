package profile

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/sandbox"
)

// MetaAllowedDirs is the _meta key through which a host (fsMCP's Relay
// convention) scopes one call to some directories.
const MetaAllowedDirs = "allowed_dirs"

// sandboxFor returns the sandbox in force for a call: base, narrowed (or,
// with --trust-meta, extended) by _meta.allowed_dirs when the call has it.
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
	if e.TrustMeta {
		return base.Extend(dirs)
	}
	return base.Narrow(dirs)
}
