package files

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fsmcp/fsmcp/sandbox"
)

// TestListIgnoresLikeSearch: listings skip the directories ripgrep would
// skip — by .gitignore, .ignore and .rgignore, nested, with negation and
// .rgignore winning over .gitignore — so fs_list and fs_grep agree.
func TestListIgnoresLikeSearch(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for rel, content := range map[string]string{
		".gitignore":     "build/\nvendor/\n",
		".ignore":        "tmp/\n",
		".rgignore":      "!vendor/\n",
		"sub/.gitignore": "gen/\n",
		"build/x":        "", "vendor/x": "", "tmp/x": "", "src/x": "",
		"sub/gen/x": "", "sub/keep/x": "",
		".git/config": "",
	} {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	defer sb.Close()
	dir, _ := sb.Resolve(root)
	l, err := List(context.Background(), dir, ListOptions{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range l.Entries {
		if e.Type == TypeDir {
			dirs = append(dirs, e.Rel)
		}
	}
	slices.Sort(l.Ignored)
	if want := []string{"build", "sub/gen", "tmp"}; !slices.Equal(l.Ignored, want) {
		t.Errorf("ignored = %v, want %v (entries %v)", l.Ignored, want, dirs)
	}
	for _, d := range dirs {
		if d == ".git" || d == "build" || d == "tmp" || d == "sub/gen" {
			t.Errorf("listed ignored directory %s", d)
		}
	}
	if !slices.Contains(dirs, "vendor") {
		t.Errorf(".rgignore's !vendor/ did not re-include vendor: %v", dirs)
	}
}
