package fsmcp

import (
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/profiletest"
	"github.com/fsmcp/fsmcp/toolkit"
)

// TestToolSnapshots fails when a tool's schema, description or annotations
// change without its snapshot in __toolsnaps__ being updated, so a renamed
// parameter never slips out unnoticed. Update with:
//
//	UPDATE_TOOLSNAPS=true go test ./tools/
func TestToolSnapshots(t *testing.T) {
	profiletest.Snapshots(t, Table(), "__toolsnaps__")
}

// TestWire replays the golden exchanges in testdata/wire through the real
// server. Update with:
//
//	UPDATE_GOLDEN=true go test -run TestWire ./tools/
func TestWire(t *testing.T) {
	profiletest.Golden(t, []*toolkit.Table{Table()}, "testdata/wire/*.txtar")
}

// TestEveryToolIsDescribed checks what a host relies on across all tools.
func TestEveryToolIsDescribed(t *testing.T) {
	names := map[string]bool{}
	profiletest.Described(t, Table())
	for _, tool := range All() {
		d := tool.Def
		if names[d.Name] {
			t.Errorf("tool %s is listed twice", d.Name)
		}
		names[d.Name] = true
		if d.Description == "" {
			t.Errorf("%s: empty description", d.Name)
		}
		a := d.Annotations
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint must be set to false", d.Name)
		}
		if !a.ReadOnlyHint && a.DestructiveHint == nil {
			t.Errorf("%s: a writer must say whether it is destructive", d.Name)
		}
		if a.Title == "" {
			t.Errorf("%s: no title", d.Name)
		}
	}
}
