package fsmcp

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/toolkit"
)

// ContextSchema is what fsMCP advertises in serverInfo.contextSchema so a
// host can render a per-token directory picker.
var ContextSchema = map[string]any{
	toolkit.MetaAllowedDirs: map[string]any{
		"type":        "array",
		"items":       map[string]any{"type": "string"},
		"description": "Directories this server is allowed to access",
		"ui":          "directory-list",
	},
}

// advertiseContextSchema adds contextSchema to serverInfo in the initialize
// answer (and the 2026-07-28 protocol's server/discover answer, where
// serverInfo sits in _meta), as fsMCP does, so a host knows it may send
// _meta.allowed_dirs.
func advertiseContextSchema(res mcp.Result) mcp.Result {
	return toolkit.ReshapeServerInfo(res, func(info map[string]any) {
		info["contextSchema"] = ContextSchema
	})
}

// Categories of fsMCP's tools/list, by which its Relay host groups tools.
const (
	categoryFiles = "File System"
	categoryShell = "Shell"
)

// withCategory puts fsMCP's `category` at the top level of each fsmcp tool
// in tools/list (the SDK already lists them sorted by name, as fsMCP does).
func withCategory(res mcp.Result) mcp.Result {
	cats := categories()
	return toolkit.Reshape(res, func(m map[string]any) {
		list, _ := m["tools"].([]any)
		for _, v := range list {
			if t, ok := v.(map[string]any); ok {
				if c, ok := cats[t["name"].(string)]; ok {
					t["category"] = c
				}
			}
		}
	})
}

// categories maps each fsmcp tool to its category: Shell for the tools
// that run commands, File System for the rest.
var categories = sync.OnceValue(func() map[string]string {
	cats := map[string]string{}
	for _, t := range All() {
		cats[t.Def.Name] = categoryFiles
		if t.NeedsShell {
			cats[t.Def.Name] = categoryShell
		}
	}
	return cats
})
