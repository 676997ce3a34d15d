package catalog

import (
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/profiletest"
	"github.com/fsmcp/fsmcp/toolkit"
)

func TestToolSnapshots(t *testing.T) {
	profiletest.Snapshots(t, Table(), "__toolsnaps__")
}

// The wire as the seed's clients have it (no params, before initialize,
// shutdown, exit) is pinned through the built binary in
// integration/testdata/seedwire; these are MCP clients' exchanges.
func TestGolden(t *testing.T) {
	profiletest.Golden(t, []*toolkit.Table{Table()}, "testdata/*.txtar")
}
