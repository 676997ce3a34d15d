package profile_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/profile"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"what to say back"`
}

func echo(name string) profile.Tool {
	return profile.Bind(&mcp.Tool{Name: name, Description: "say it back", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, c *profile.Call, in echoIn) (*mcp.CallToolResult, error) {
			return profile.Text(in.Text), nil
		})
}

// Two profiles defining the same tool cannot be served together, and the
// error names both.
func TestCheckNamesBothProfiles(t *testing.T) {
	a := &profile.Table{Name: "alpha", Tools: []profile.Tool{echo("say")}}
	b := &profile.Table{Name: "beta", Tools: []profile.Tool{echo("other"), echo("say")}}
	if err := profile.Check([]*profile.Table{a}); err != nil {
		t.Fatal(err)
	}
	err := profile.Check([]*profile.Table{a, b})
	if err == nil || !strings.Contains(err.Error(), "alpha") || !strings.Contains(err.Error(), "beta") || !strings.Contains(err.Error(), `"say"`) {
		t.Errorf("clash: %v", err)
	}
	// The plain front serves standard clients too: the union speaks it.
	c := &profile.Table{Name: "gamma", Wire: profile.Plain}
	if err := profile.Check([]*profile.Table{a, c}); err != nil {
		t.Errorf("standard and plain: %v", err)
	}
	if w, _ := profile.WireOf([]*profile.Table{a, c}); w != profile.Plain {
		t.Errorf("standard and plain serve %v, want Plain", w)
	}
}
