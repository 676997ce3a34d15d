// Package reference is the `reference` profile: a stand-in for the
// official MCP filesystem server (@modelcontextprotocol/server-filesystem
// 2026.8.31). Its fourteen tools carry the official definitions
// (tools.json), check arguments as its zod schemas do (args.go), resolve
// paths as its validatePath does (paths.go) and answer with its texts and
// structuredContent, over fsmcp's sandbox, limits and atomic writes.
package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/toolkit"
)

// Name is the profile's name for --profile.
const Name = "reference"

// Table is the reference profile.
func Table() *toolkit.Table {
	return &toolkit.Table{
		Name: Name,
		Tools: []toolkit.Tool{
			tool("read_file", readText),
			tool("read_text_file", readText),
			tool("read_media_file", readMedia),
			tool("read_multiple_files", readMultiple),
			tool("write_file", writeFile),
			tool("edit_file", editFile),
			tool("create_directory", createDirectory),
			tool("list_directory", listDirectory),
			tool("list_directory_with_sizes", listWithSizes),
			tool("directory_tree", directoryTree),
			tool("move_file", moveFile),
			toolkit.Searching(tool("search_files", searchFiles)), // walks the tree itself
			tool("get_file_info", fileInfo),
			tool("list_allowed_directories", allowedDirectories),
		},
		Arguments: toolkit.Arguments{
			Paths: toolkit.RelativeToContainingRoot,
		},
		Handshake: toolkit.Handshake{
			Initialize: serverInfo,
			Answers:    map[string]func(mcp.Result) mcp.Result{"tools/list": officialAnnotations},
		},
		Wording: toolkit.Wording{
			// The official server's McpServer answers a tool it lacks with an
			// isError result, and keeps unknown arguments out of the way (zod
			// objects strip them); args.go never looks at them.
			UnknownTool: func(name string) error { return fmt.Errorf("MCP error -32602: Tool %s not found", name) },
		},
		Listing: toolkit.Listing{
			// The official server's everyday tools: read, write, edit, find
			// files by name and list a directory (it has no content search);
			// docs/profiles.md, "Loaded up front".
			Upfront: []string{"read_text_file", "write_file", "edit_file", "search_files", "list_directory"},
		},
	}
}

// tool binds a typed handler under the official definition of name,
// advertised as it is (tools.json, Bind's preset-schema hook). The
// arguments are checked against In as zod checks them (args.go: every
// problem, in the official words) before they are decoded into In.
func tool[In any](name string, h toolkit.Handler[In]) toolkit.Tool {
	fields := fieldsOf(reflect.TypeFor[In]())
	return toolkit.Bind(official(name), func(ctx context.Context, c *toolkit.Call, args map[string]any) (*mcp.CallToolResult, error) {
		in, err := decode[In](name, args, fields)
		if err != nil {
			return nil, err
		}
		return h(ctx, c, in)
	})
}

// text is the official server's answer: one text block, mirrored as
// structuredContent {content}.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, StructuredContent: map[string]any{"content": s}}
}

// serverInfo names the server as the official one does; the version says
// which fsmcp stands in.
func serverInfo(res mcp.Result) mcp.Result {
	return toolkit.Reshape(res, func(m map[string]any) {
		if info, ok := m["serverInfo"].(map[string]any); ok {
			info["name"] = "secure-filesystem-server"
			info["version"] = "0.2.0"
		}
	})
}

// remarshal is a helper for structured content built from SDK types.
func remarshal(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}
