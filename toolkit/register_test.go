package toolkit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/toolkit"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"what to say back"`
}

func echo(name string) toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{Name: name, Description: "say it back", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, c *toolkit.Call, in echoIn) (*mcp.CallToolResult, error) {
			return toolkit.Text(in.Text), nil
		})
}

// Two profiles defining the same tool cannot be served together, and the
// error names both.
func TestCheckNamesBothProfiles(t *testing.T) {
	a := &toolkit.Table{Name: "alpha", Tools: []toolkit.Tool{echo("say")}}
	b := &toolkit.Table{Name: "beta", Tools: []toolkit.Tool{echo("other"), echo("say")}}
	if err := toolkit.Check([]*toolkit.Table{a}); err != nil {
		t.Fatal(err)
	}
	err := toolkit.Check([]*toolkit.Table{a, b})
	if err == nil || !strings.Contains(err.Error(), "alpha") || !strings.Contains(err.Error(), "beta") || !strings.Contains(err.Error(), `"say"`) {
		t.Errorf("clash: %v", err)
	}
	// The plain front serves standard clients too: the union speaks it.
	c := &toolkit.Table{
		Name: "gamma",
		Transport: toolkit.Transport{
			Wire: toolkit.Plain,
		},
	}
	if err := toolkit.Check([]*toolkit.Table{a, c}); err != nil {
		t.Errorf("standard and plain: %v", err)
	}
	if w := toolkit.WireOf([]*toolkit.Table{a, c}); w != toolkit.Plain {
		t.Errorf("standard and plain serve %v, want Plain", w)
	}
}

// A table that loads up front a tool it does not define (a misspelt
// name) is refused when it is checked, naming the profile and the name.
func TestCheckRefusesUpfrontWithoutTool(t *testing.T) {
	a := &toolkit.Table{
		Name:  "alpha",
		Tools: []toolkit.Tool{echo("say")},
		Listing: toolkit.Listing{
			Upfront: []string{"say"},
		},
	}
	if err := toolkit.Check([]*toolkit.Table{a}); err != nil {
		t.Fatal(err)
	}
	a.Upfront = append(a.Upfront, "sya")
	if err := toolkit.Check([]*toolkit.Table{a}); err == nil || !strings.Contains(err.Error(), "alpha") || !strings.Contains(err.Error(), `"sya"`) {
		t.Errorf("misspelt up-front tool: %v", err)
	}
}
