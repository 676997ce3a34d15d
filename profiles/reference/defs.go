package reference

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools.json is the official server's tools/list answer (2026.8.31, its
// SDK's "execution" field left out): names, titles, descriptions, input
// and output schemas and annotations, served as they are so a client sees
// the same definitions byte for byte.
//
//go:embed tools.json
var toolsJSON []byte

type officialTool struct {
	Name         string               `json:"name"`
	Title        string               `json:"title"`
	Description  string               `json:"description"`
	InputSchema  json.RawMessage      `json:"inputSchema"`
	OutputSchema json.RawMessage      `json:"outputSchema"`
	Annotations  *mcp.ToolAnnotations `json:"annotations"`
}

// definitions maps a tool name to its official definition.
var definitions = func() map[string]officialTool {
	var list []officialTool
	if err := json.Unmarshal(toolsJSON, &list); err != nil {
		panic(fmt.Sprintf("reference: tools.json: %v", err))
	}
	m := make(map[string]officialTool, len(list))
	for _, t := range list {
		m[t.Name] = t
	}
	return m
}()

// official is the definition of a tool, as the official server lists it.
func official(name string) *mcp.Tool {
	t, ok := definitions[name]
	if !ok {
		panic("reference: no official definition of " + name)
	}
	return &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations}
}
