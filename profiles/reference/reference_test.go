package reference

import (
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/profiletest"
	"github.com/fsmcp/fsmcp/toolkit"
)

// TestToolSnapshots pins every tool's definition.
func TestToolSnapshots(t *testing.T) {
	profiletest.Snapshots(t, Table(), "__toolsnaps__")
}

// TestGolden replays the wire exchanges in testdata/. Each server section
// was checked against the official server 2026.8.31 run on the same client
// section (see testdata/README); the differences left are the ones the
// README's reference section lists.
func TestGolden(t *testing.T) {
	profiletest.Golden(t, []*toolkit.Table{Table()}, "testdata/*.txtar")
}
