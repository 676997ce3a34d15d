// Package rgtest names the ripgrep binaries the rg/native parity tests run
// against: the rg on PATH, and a second one (another major version) given
// by FSMCP_TEST_RG2, so one run proves both agree with the native scanner.
package rgtest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Env names the optional second rg binary (`make test-rg14` sets it).
const Env = "FSMCP_TEST_RG2"

// Bin is one ripgrep binary.
type Bin struct {
	Path    string
	Version string // "13.0.0"
	Line    string // the first line of `rg --version`
}

// Bins returns the rg on PATH (if any) and the one Env names (if set). A
// binary Env names that does not run fails the test: asking for a second
// rg and silently not getting it would hide the very check asked for.
func Bins(t testing.TB) []Bin {
	t.Helper()
	var bins []Bin
	if p, err := exec.LookPath("rg"); err == nil {
		bins = append(bins, bin(t, p))
	}
	if p := os.Getenv(Env); p != "" {
		bins = append(bins, bin(t, p))
	}
	return bins
}

// ForEach runs fn as a subtest for each binary of Bins, named by its
// version, and skips loudly when there is none.
func ForEach(t *testing.T, fn func(t *testing.T, bin Bin)) {
	t.Helper()
	bins := Bins(t)
	if len(bins) == 0 {
		t.Skip("SKIPPED: rg (ripgrep) is not on PATH and " + Env + " is unset — the rg/native parity checks did not run. Install ripgrep to run them.")
	}
	for _, b := range bins {
		t.Run("rg-"+b.Version, func(t *testing.T) {
			t.Logf("%s: %s", b.Path, b.Line)
			fn(t, b)
		})
	}
}

func bin(t testing.TB, path string) Bin {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a failure bound only
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", path, err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	// "ripgrep 14.1.1 (rev 4649aa9700)": keep the name and number.
	f := strings.Fields(first)
	if len(f) < 2 || f[0] != "ripgrep" {
		t.Fatalf("%s --version: not ripgrep: %q", path, first)
	}
	return Bin{Path: path, Version: f[1], Line: first}
}
