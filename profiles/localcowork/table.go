// Package localcowork is the localcowork profile: a stand-in for
// LocalCowork's filesystem server (seed 004), whose Rust host speaks plain
// newline-delimited JSON-RPC on stdio. It names the core operations
// (files, watch) as that server's nine tools, shapes their answers as
// `content[0].text` = the data's JSON, and maps core errors to its codes.
package localcowork

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/toolkit"
)

// Name is the profile's --profile name.
const Name = "localcowork"

// The original's serverInfo (filesystem/src/index.ts), which the host logs
// and may key its server table by.
const (
	serverName    = "filesystem"
	serverVersion = "1.0.0"
)

// flags are a tool's confirmation and undo flags, from the original's
// registry (docs/mcp-tool-registry.yaml).
type flags struct{ confirm, undo bool }

var registry = map[string]flags{
	"filesystem.list_dir":     {false, false},
	"filesystem.read_file":    {false, false},
	"filesystem.write_file":   {true, false},
	"filesystem.move_file":    {true, true},
	"filesystem.copy_file":    {true, false},
	"filesystem.delete_file":  {true, true},
	"filesystem.search_files": {false, false},
	"filesystem.get_metadata": {false, false},
	"filesystem.watch_folder": {true, false},
}

// Table is the localcowork profile.
func Table() *toolkit.Table {
	// The schemas state the original's zod .default() and z.enum() values
	// as zod-to-json-schema writes them (advertise tags); the handlers check
	// the enum and the bound with the original's words.
	tools := []toolkit.Tool{listDir(), readFile(), writeFile(), moveFile(), copyFile(), deleteFile(), searchFiles(), getMetadata(), watchFolder()}
	return &toolkit.Table{
		Name:  Name,
		Tools: tools,
		Arguments: toolkit.Arguments{
			ExtraArgs: toolkit.IgnoreExtra, // zod's z.object() strips unknown keys
		},
		Handshake: toolkit.Handshake{
			Initialize: func(res mcp.Result) mcp.Result {
				res = toolkit.Reshape(res, func(m map[string]any) { m["tools"] = manifest(tools) })
				return toolkit.ReshapeServerInfo(res, func(info map[string]any) {
					info["name"], info["version"] = serverName, serverVersion
				})
			},
			Answers: map[string]func(mcp.Result) mcp.Result{
				"tools/list": withFlags,
				"ping": func(res mcp.Result) mcp.Result {
					return toolkit.Reshape(res, func(m map[string]any) { m["status"] = "ok" })
				},
			},
			DefaultRoots: func(getenv func(string) string) ([]string, error) {
				v := getenv("LOCALCOWORK_ALLOWED_PATHS")
				dirs := filepath.SplitList(v)
				if slices.Contains(dirs, "") {
					return nil, fmt.Errorf("LOCALCOWORK_ALLOWED_PATHS %q has an empty entry, which would allow the working directory; remove it (an unset variable in the host's config?)", v)
				}
				return dirs, nil
			},
		},
		Wording: toolkit.Wording{
			Errors:        argError,
			UnknownTool:   unknownTool,
			UnknownMethod: func(method string) string { return "Unknown method: " + method },
		},
		Transport: toolkit.Transport{
			Wire: toolkit.Plain,
		},
	}
}

// manifest is the tool list of the initialize answer, as the original's
// buildToolDefinitions writes it, with the two flags also at the top level
// of each tool, where the Rust host reads them.
func manifest(tools []toolkit.Tool) []any {
	out := make([]any, 0, len(tools))
	for _, t := range tools {
		m := map[string]any{"name": t.Def.Name, "description": t.Def.Description, "inputSchema": t.Def.InputSchema}
		addFlags(m)
		out = append(out, m)
	}
	return out
}

// addFlags sets a tool's flags under metadata and at its top level.
func addFlags(tool map[string]any) {
	name, _ := tool["name"].(string)
	f := registry[name]
	tool["metadata"] = map[string]any{"confirmationRequired": f.confirm, "undoSupported": f.undo}
	tool["confirmationRequired"], tool["undoSupported"] = f.confirm, f.undo
}

// withFlags adds the flags to each tool of a tools/list answer.
func withFlags(res mcp.Result) mcp.Result {
	return toolkit.Reshape(res, func(m map[string]any) {
		tools, _ := m["tools"].([]any)
		for _, t := range tools {
			if tool, ok := t.(map[string]any); ok {
				addFlags(tool)
			}
		}
	})
}
