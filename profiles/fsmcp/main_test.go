package fsmcp

import (
	"os"
	"testing"

	"github.com/fsmcp/fsmcp/shell"
)

// TestMain lets the test binary serve as fs_bash's helper, as fsmcp's main
// does: every command runs below it (a keeper, or the sandbox), and the
// helper is the running program.
func TestMain(m *testing.M) {
	shell.MaybeRunSandboxChild()
	os.Exit(m.Run())
}
