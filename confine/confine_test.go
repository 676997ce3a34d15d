package confine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	MaybeRun()
	os.Exit(m.Run())
}

// TestConfinedProgramReadsOnlyItsPolicy: a program run through Command
// reads the directories and files of its policy, and nothing else — not
// a file beside them, not one reached through a symlink inside them.
func TestConfinedProgramReadsOnlyItsPolicy(t *testing.T) {
	if !Confined() {
		t.Skip("SKIPPED: no Landlock here")
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	cat, _ = filepath.Abs(cat)
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(root, "in.txt"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644)
	os.WriteFile(filepath.Join(outside, "allowed.txt"), []byte("allowed"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link"))
	p := Policy{Dirs: []string{root}, Files: []string{filepath.Join(outside, "allowed.txt")}}
	run := func(path string) (string, error) {
		out, err := Command(context.Background(), p, cat, path).Output()
		return string(out), err
	}
	for path, want := range map[string]string{filepath.Join(root, "in.txt"): "inside", filepath.Join(outside, "allowed.txt"): "allowed"} {
		if got, err := run(path); err != nil || got != want {
			t.Errorf("cat %s = %q, %v; want %q", path, got, err, want)
		}
	}
	for _, path := range []string{filepath.Join(outside, "secret.txt"), filepath.Join(root, "link"), "/etc/hostname"} {
		if got, err := run(path); err == nil || strings.Contains(got, "secret") {
			t.Errorf("cat %s was allowed: %q", path, got)
		}
	}
}
