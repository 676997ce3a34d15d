package toolkit_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/toolkit"
)

type advertisedIn struct {
	Path  string   `json:"path,omitempty" advertise:"default=."`
	Deep  bool     `json:"deep,omitempty" advertise:"default=false"`
	Max   int      `json:"max,omitempty" advertise:"default=100,minimum=1"`
	Kind  string   `json:"kind,omitempty" advertise:"enum=file|dir"`
	Query string   `json:"query,omitempty" advertise:"required"`
	Items []itemIn `json:"items,omitempty"`
}

type itemIn struct {
	Append bool `json:"append,omitempty" advertise:"default=false"`
}

// advertise tags state what a seed's schema adds for clients (defaults,
// enums, bounds, required) in the advertised schema only: the validating
// schema is In's, so a call without the "required" query still reaches
// the handler, which refuses it in the seed's words.
func TestAdvertiseTagsShapeOnlyTheAdvertisedSchema(t *testing.T) {
	tool := toolkit.Bind(&mcp.Tool{Name: "t", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, c *toolkit.Call, in advertisedIn) (*mcp.CallToolResult, error) {
			return toolkit.Text("reached"), nil
		})
	raw, err := json.Marshal(tool.Def.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"path":{"type":"string","default":"."},"deep":{"type":"boolean","default":false},"max":{"type":"integer","default":100,"minimum":1},"kind":{"type":"string","enum":["file","dir"]},"query":{"type":"string"},"items":{"type":"array","items":{"type":"object","properties":{"append":{"type":"boolean","default":false}},"additionalProperties":false}}},"required":["query"],"additionalProperties":false}`
	if string(raw) != want {
		t.Errorf("advertised schema\n%s\nwant\n%s", raw, want)
	}
	cs := connect(t, &toolkit.Table{Name: "adv", Tools: []toolkit.Tool{tool}})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}})
	if err != nil || res.IsError || text(res) != "reached" {
		t.Errorf("a call without the advertised-required query: %v %v", res, err)
	}
}
