package reference_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/sandbox"
)

// TestOfficialPathValidationCases runs the official server's own
// isPathWithinAllowedDirectories cases (its __tests__/path-validation.test.ts,
// every expectation written with literal paths, extracted as data into
// testdata/path-validation-cases.json) against fsmcp's sandbox. Each case's
// directories and path are placed under a temporary base (the allowed
// directories must exist for fsmcp); Windows drive and UNC cases do not
// apply on a POSIX host (on Windows, sandbox's TestWinPathOfficialCases
// and integration/windows run them: make test-windows).
func TestOfficialPathValidationCases(t *testing.T) {
	raw, err := os.ReadFile("testdata/path-validation-cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Test    string
		Path    string
		Allowed []string
		Want    bool
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	windows := regexp.MustCompile(`^([A-Za-z]:|\\\\)`)
	ran, agree, notApplicable := 0, 0, 0
	for _, c := range cases {
		if windows.MatchString(c.Path) || strings.Contains(strings.Join(c.Allowed, "\x01"), "\\") || anyMatch(windows, c.Allowed) {
			notApplicable++
			continue
		}
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		var dirs []string
		for _, d := range c.Allowed {
			if d == "" || strings.ContainsRune(d, 0) || !filepath.IsAbs(d) {
				continue // the official check skips these entries too
			}
			dir := filepath.Join(base, d)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, dir)
		}
		got := false
		if len(dirs) > 0 && c.Path != "" && filepath.IsAbs(c.Path) {
			sb, errs := sandbox.New(dirs)
			if len(errs) > 0 {
				t.Fatalf("%s: %v", c.Test, errs)
			}
			got = sb.Contains(base + c.Path)
			sb.Close()
		}
		ran++
		if got == c.Want {
			agree++
		} else {
			t.Errorf("%s: %q in %q = %v, the official server says %v", c.Test, c.Path, c.Allowed, got, c.Want)
		}
	}
	t.Logf("official path-validation cases: %d run, %d agree, %d Windows-only not applicable", ran, agree, notApplicable)
}

func anyMatch(re *regexp.Regexp, list []string) bool {
	for _, s := range list {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}
