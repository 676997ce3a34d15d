package driver

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("rg"); err != nil {
		fmt.Fprintln(os.Stderr, "\n*** SKIPPED: rg is not on PATH, so package driver's rg tests (type table, cancellation, glob narrowing) do not run. Install ripgrep to run them. ***")
	}
	os.Exit(m.Run())
}
