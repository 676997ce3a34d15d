package toolkit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsmcp/fsmcp/sandbox"
)

// TestWinPathRelativeRules pins how the rules that take relative paths
// read the two Windows forms that are neither relative nor absolute, as
// Node's path module (the originals') reads them: \ws\a.txt and /ws/a.txt
// are on the current drive; C:a.txt is under the root on drive C:. A rule
// that takes relative paths only refuses both. (No I/O but opening the
// package's own directory as the root: make test-windows runs it under
// Wine.)
func TestWinPathRelativeRules(t *testing.T) {
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	defer sb.Close()
	vol := filepath.VolumeName(root)
	rest := root[len(vol):]
	for _, c := range []struct {
		rule     PathRule
		in, want string
	}{
		{RelativeToContainingRoot, `a.txt`, filepath.Join(root, "a.txt")},
		{RelativeToContainingRoot, `sub/a.txt`, filepath.Join(root, "sub", "a.txt")},
		{RelativeToContainingRoot, vol + `a.txt`, filepath.Join(root, "a.txt")},
		{RelativeToContainingRoot, rest + `\a.txt`, root + `\a.txt`},
		{RelativeToContainingRoot, filepath.ToSlash(rest) + `/a.txt`, root + `\a.txt`},
		{RelativeToRoot, vol + `sub\a.txt`, filepath.Join(root, "sub", "a.txt")},
		{Absolute, `\a.txt`, `\a.txt`},
		{Absolute, vol + `a.txt`, vol + `a.txt`},
	} {
		if got, err := c.rule.Apply(sb, c.in); err != nil || got != c.want {
			t.Errorf("rule %d: Apply(%q) = %q, %v; want %q", c.rule, c.in, got, err, c.want)
		}
	}
	for _, in := range []string{`\a.txt`, `/a.txt`, vol + `a.txt`, vol + `\a.txt`} {
		if _, err := RelativeOnly.Apply(sb, in); !errors.Is(err, sandbox.ErrNotRelative) {
			t.Errorf("RelativeOnly.Apply(%q) = %v, want ErrNotRelative", in, err)
		}
	}
}
