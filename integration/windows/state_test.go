//go:build windows

package windows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStateLivesInLocalAppData: the change journal and the index cache go
// where Windows programs keep such state, %LOCALAPPDATA%\fsmcp, not
// into %USERPROFILE%\.local\state; the journal works there (a change is
// listed and undone).
func TestStateLivesInLocalAppData(t *testing.T) {
	tr := newTree(t)
	local, profile := tempDir(t), tempDir(t)
	env := []string{"LOCALAPPDATA=" + local, "USERPROFILE=" + profile, "HOME=" + profile}
	cs := connectStdioEnv(t, "", env, "--index", "on", tr.root)
	p := tr.path("a.txt")
	ok(t, cs, "fs_write", map[string]any{"file_path": p, "content": "changed\n"})
	if out := ok(t, cs, "fs_history", map[string]any{}); !strings.Contains(out, "fs_write") || !strings.Contains(out, "a.txt") {
		t.Errorf("fs_history = %q", out)
	}
	ok(t, cs, "fs_undo", map[string]any{"last": 1})
	if got := read(t, p); got != "alpha\n"+needle+" one\nbeta\n" {
		t.Errorf("after fs_undo: %q", got)
	}
	if fi, err := os.Stat(filepath.Join(local, "fsmcp", "journal")); err != nil || !fi.IsDir() {
		t.Errorf("no journal in %%LOCALAPPDATA%%\\fsmcp\\journal: %v", err)
	}
	// The index is built in the background; its directory is made first.
	deadline := time.Now().Add(2 * time.Minute) // only bounds a failure
	for {
		entries, _ := os.ReadDir(filepath.Join(local, "fsmcp"))
		if len(entries) > 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("no index cache beside the journal in %s: %v", filepath.Join(local, "fsmcp"), entries)
			break
		}
		ok(t, cs, "fs_grep", map[string]any{"pattern": needle})
	}
	if exists(filepath.Join(profile, ".local")) || exists(filepath.Join(profile, ".cache")) {
		t.Errorf("state was written under %%USERPROFILE%% (%s)", profile)
	}
}
