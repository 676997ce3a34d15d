package filesystemmcp

import (
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/profiletest"
	"github.com/fsmcp/fsmcp/toolkit"
)

func TestToolSnapshots(t *testing.T) {
	profiletest.Snapshots(t, Table(), "__toolsnaps__")
}

// The golden exchanges, checked against the original's handlers
// (src/handlers/*.ts at v0.4.13) and ../shared/reference/seed-systems.md
// (003).
func TestGolden(t *testing.T) {
	profiletest.Golden(t, []*toolkit.Table{Table()}, "testdata/*.txtar")
}
