package toolkit

import "github.com/modelcontextprotocol/go-sdk/mcp"

// ReadOnly and Writes are the two kinds of annotation a tool can have,
// for every profile; each sets openWorldHint false (fsmcp touches only
// the roots).
func ReadOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: new(bool)}
}

// Writes is the annotation of a tool that changes files.
func Writes(title string, destructive, idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: &destructive, IdempotentHint: idempotent, OpenWorldHint: new(bool)}
}
