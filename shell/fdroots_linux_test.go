package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSandboxRulesFollowDescriptorsNotNames opens the root, then swaps its
// name for a link to a directory outside: the command's Landlock rules
// must cover the directory that was opened, not the one the name now
// leads to. (In the shell's own mount namespace the opened directory is
// what is mounted at the name the root resolves to now, "outside", which
// hides the real one; without a namespace, it is reached as "moved".)
func TestSandboxRulesFollowDescriptorsNotNames(t *testing.T) {
	requireLandlock(t)
	s, root := newTestSession(t, ModeSandboxed, nil)
	base := filepath.Dir(root)
	outside := filepath.Join(base, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "mine"), []byte("MINE"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	moved := filepath.Join(base, "moved")
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, root); err != nil {
		t.Fatal(err)
	}
	res, err := s.RunIn(context.Background(), []string{root}, []*os.File{dir},
		"cat "+filepath.Join(outside, "secret")+"; echo x > "+filepath.Join(outside, "planted")+"; cat "+filepath.Join(moved, "mine")+" "+filepath.Join(outside, "mine"), 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "SECRET") {
		t.Fatalf("the command read outside through the swapped name:\n%s", res.Output)
	}
	if _, err := os.Stat(filepath.Join(outside, "planted")); err == nil {
		t.Fatal("the command wrote outside through the swapped name")
	}
	if !strings.Contains(res.Output, "MINE") {
		t.Fatalf("the opened root is not usable:\n%s", res.Output)
	}
}
