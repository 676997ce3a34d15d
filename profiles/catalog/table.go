// Package catalog is the catalog profile: a stand-in for the file-catalog
// server of seed 000 (one method, catalog/create, over plain JSON-RPC on
// stdio or HTTP). The work is package catalog's Create (SPEC §6); this
// package only names it, shapes its answers and maps its errors to the
// seed's codes.
package catalog

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/toolkit"
)

// Name is the profile's --profile name.
const Name = "catalog"

// Method is the seed's one method, served as a direct JSON-RPC method and
// as an MCP tool of the same name.
const Method = "catalog/create"

// Table is the catalog profile.
func Table() *toolkit.Table {
	return &toolkit.Table{
		Name:    Name,
		Tools:   []toolkit.Tool{createTool()},
		Methods: []toolkit.Method{toolkit.NewMethod(Method, createMethod)},
		Arguments: toolkit.Arguments{
			ExtraArgs: toolkit.IgnoreExtra, // the original reads two keys and ignores the rest
		},
		Handshake: toolkit.Handshake{
			PlainInitialize: seedInitialize,
		},
		Wording: toolkit.Wording{
			Errors: mapError,
		},
		Transport: toolkit.Transport{
			Wire:     toolkit.Plain,
			HTTPExit: true,
		},
	}
}

// description is the seed's text for the tool.
const description = "Creates a catalog of all files in a directory, saving it as a TSV file."

// seedSchema is the tool's parameters exactly as the seed's initialize
// answer shows them.
func seedSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"target_dir":  map[string]any{"type": "string", "description": "The absolute path of the directory to catalog."},
			"output_file": map[string]any{"type": "string", "description": "The absolute path where the output TSV file will be saved."},
		},
		"required": []string{"target_dir", "output_file"},
	}
}

// seedInitialize is the answer a client that sent initialize without
// params reads: capabilities.tools is the seed's list of tools with their
// `parameters`. That array cannot stand where an MCP client expects the
// tools capability object (both the go-sdk and the TypeScript SDK refuse
// it), so MCP clients, who send params, get the standard answer. The
// standard protocolVersion and serverInfo stay: the seed's clients ignore
// them.
func seedInitialize(res mcp.Result) mcp.Result {
	return toolkit.Reshape(res, func(m map[string]any) {
		caps, _ := m["capabilities"].(map[string]any)
		if caps == nil {
			caps = map[string]any{}
			m["capabilities"] = caps
		}
		caps["tools"] = []any{map[string]any{"name": Method, "description": description, "parameters": seedSchema()}}
	})
}
