package reference_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func checkStructured(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Errorf("%s: %v %+v", name, err, res)
		return
	}
	sc, ok := res.StructuredContent.(map[string]any)
	if !ok || sc["content"] == nil {
		t.Errorf("%s: structuredContent = %#v", name, res.StructuredContent)
		return
	}
	if _, isText := sc["content"].(string); isText == (name == "read_media_file") {
		t.Errorf("%s: structuredContent.content = %#v", name, sc["content"])
	}
}
