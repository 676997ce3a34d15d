// Package goroot is the installed Go's tree as a test fixture: a large,
// real tree on every machine that builds fsmcp. What it holds varies with
// the Go version, so the tests built on it assert relations (rg and the
// native scanner agree, a search is cut, progress arrives), never counts
// or names of its files; each reads it through Dir or Src, which log the
// version used and skip, saying why, where the tree is not the fixture
// expected. Tests only.
package goroot

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Dir is $(go env GOROOT) when it holds Go's sources, else the test is
// skipped with the reason.
func Dir(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("SKIPPED: GOROOT fixture: go env GOROOT failed (%v); this test searches the Go installation's sources", err)
	}
	dir := strings.TrimSpace(string(out))
	// A GOROOT without its sources (some distributions package them
	// apart) is not the large tree these tests need.
	if _, err := os.Stat(filepath.Join(dir, "src", "regexp", "regexp.go")); err != nil {
		t.Skipf("SKIPPED: GOROOT fixture: %s holds no Go sources (%v); this test searches them", dir, err)
	}
	version, _ := os.ReadFile(filepath.Join(dir, "VERSION"))
	if line, _, _ := bytes.Cut(version, []byte("\n")); len(line) > 0 {
		t.Logf("GOROOT fixture: %s (%s)", dir, line)
	} else {
		t.Logf("GOROOT fixture: %s", dir)
	}
	return dir
}

// Src is Dir's src directory.
func Src(t testing.TB) string {
	t.Helper()
	return filepath.Join(Dir(t), "src")
}
