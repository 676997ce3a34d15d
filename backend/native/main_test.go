package native

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("rg"); err != nil {
		fmt.Fprintln(os.Stderr, "\n*** SKIPPED: rg is not on PATH, so the rg/native parity tests of package native do not run. Install ripgrep to run them. ***")
	}
	os.Exit(m.Run())
}
