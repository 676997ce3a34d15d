package reference

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/toolkit"
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

// annotationKeys are the annotation keys each official tool sends. The
// go-sdk writes idempotentHint (a plain bool) on every tool, false where
// the official server leaves it out (its ten read-only tools).
var annotationKeys = func() map[string]map[string]bool {
	var list []struct {
		Name        string         `json:"name"`
		Annotations map[string]any `json:"annotations"`
	}
	if err := json.Unmarshal(toolsJSON, &list); err != nil {
		panic(fmt.Sprintf("reference: tools.json: %v", err))
	}
	m := make(map[string]map[string]bool, len(list))
	for _, t := range list {
		keys := map[string]bool{}
		for k := range t.Annotations {
			keys[k] = true
		}
		m[t.Name] = keys
	}
	return m
}()

// officialAnnotations reshapes a tools/list answer so that each official
// tool's annotations carry only the keys the official server sends.
func officialAnnotations(res mcp.Result) mcp.Result {
	return toolkit.Reshape(res, func(m map[string]any) {
		tools, _ := m["tools"].([]any)
		for _, t := range tools {
			tool, _ := t.(map[string]any)
			name, _ := tool["name"].(string)
			ann, _ := tool["annotations"].(map[string]any)
			keys, ok := annotationKeys[name]
			if !ok || ann == nil {
				continue
			}
			for k := range ann {
				if !keys[k] {
					delete(ann, k)
				}
			}
		}
	})
}
