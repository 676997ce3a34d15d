package toolkit

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReshapeKeepsKeyOrder: a reshaped answer keeps each object's keys in
// the order the answer had them, nested ones and those in arrays too;
// keys an edit adds follow, sorted, and keys it drops are gone.
func TestReshapeKeepsKeyOrder(t *testing.T) {
	schema := `{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["oldText","newText"]}},"dryRun":{"default":false,"type":"boolean"}},"required":["path","edits"]}`
	list := &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "edit_file", InputSchema: json.RawMessage(schema),
		Annotations: &mcp.ToolAnnotations{Title: "Edit"}}}}
	got, err := json.Marshal(Reshape(list, func(m map[string]any) {
		tool := m["tools"].([]any)[0].(map[string]any)
		delete(tool, "annotations")
		tool["zeta"], tool["alpha"] = 1, 2
	}))
	if err != nil {
		t.Fatal(err)
	}
	// The SDK's order (its Tool sorted, ttlMs and cacheScope first), the
	// schema's own, annotations gone, the two new keys last, sorted.
	want := `{"ttlMs":0,"cacheScope":"","tools":[{"inputSchema":` + schema + `,"name":"edit_file","alpha":2,"zeta":1}]}`
	if string(got) != want {
		t.Errorf("reshaped:\n%s\nwant:\n%s", got, want)
	}
}
