package tools

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/profile"
)

// ContextSchema is what fsMCP advertises in serverInfo.contextSchema so a
// host can render a per-token directory picker.
var ContextSchema = map[string]any{
	profile.MetaAllowedDirs: map[string]any{
		"type":        "array",
		"items":       map[string]any{"type": "string"},
		"description": "Directories this token may access (absolute paths). They narrow the server's allowed directories.",
		"ui":          "directory-list",
	},
}

// advertiseContextSchema adds contextSchema to serverInfo in the initialize
// answer (and the 2026-07-28 protocol's server/discover answer, where
// serverInfo sits in _meta), as fsMCP does, so a host knows it may send
// _meta.allowed_dirs.
func advertiseContextSchema(res mcp.Result) mcp.Result {
	return profile.Reshape(res, func(m map[string]any) {
		if info, ok := m["serverInfo"].(map[string]any); ok {
			info["contextSchema"] = ContextSchema
		}
		if meta, ok := m["_meta"].(map[string]any); ok {
			if info, ok := meta[mcp.MetaKeyServerInfo].(map[string]any); ok {
				info["contextSchema"] = ContextSchema
			}
		}
	})
}
