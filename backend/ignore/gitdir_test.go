package ignore

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGitDirLeftOutWhateverTheGlobs: no glob a client gives brings .git
// back into a search (GitDirGlob is the Filter's last override), with the
// ignore files read or not, and AlwaysLeftOut is the same rule for the
// walks that take no globs (listings, watches).
func TestGitDirLeftOutWhateverTheGlobs(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, GitDir), 0o755); err != nil {
		t.Fatal(err)
	}
	ig := ParentIgnores(root, "").ChildProbe(root)
	for _, globs := range [][]string{nil, {"*"}, {".git"}, {".git/**"}, {"**/.git"}, {"**", "!!.git"}} {
		for _, noIgnore := range []bool{false, true} {
			f, err := NewFilter(globs, nil, noIgnore)
			if err != nil {
				t.Fatal(err)
			}
			if !f.Skip(ig, root, root+"/"+GitDir, GitDir, true) {
				t.Errorf("globs %q (no_ignore %v) search .git", globs, noIgnore)
			}
		}
	}
	if !AlwaysLeftOut(".git") || AlwaysLeftOut(".github") || AlwaysLeftOut("git") || GitDirGlob != "!.git" {
		t.Error("AlwaysLeftOut or GitDirGlob is not .git's rule")
	}
}
