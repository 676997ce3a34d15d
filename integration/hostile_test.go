package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hostile trees: names, links and special files an agent can plant inside
// a root to make a search lie, leak or hang. Each test runs both backends.

// TestGlobSymlinkDirOutDoesNotList: a pattern whose static prefix crosses
// a symlinked directory (dir-out -> ../outside) lists nothing, in every
// backend, rather than the outside directory's names.
func TestGlobSymlinkDirOutDoesNotList(t *testing.T) {
	attack(t)
	tr := newTree(t)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			cs := connectStdio(t, m, tr.root)
			for _, pat := range []string{"dir-out/*", "dir-out/**", "dir-out/nested/*.txt", "link-in/*"} {
				if out := mustCall(t, cs, "fs_glob", map[string]any{"pattern": pat}); out != "No files found." {
					t.Errorf("fs_glob %q = %q, want nothing", pat, out)
				}
			}
		})
	}
}

// TestNameWithNewlineCannotForgeResultLine: a file named "sp\n/etc/passwd"
// is printed escaped by fs_glob and fs_grep (every output mode), so no
// result line reads "/etc/passwd".
func TestNameWithNewlineCannotForgeResultLine(t *testing.T) {
	attack(t)
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "sp\n/etc/passwd"), "root:x:0:0 "+needle+"\n")
	write(t, filepath.Join(tr.root, "tab\there\x1b[2J"), needle+"\n")
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			cs := connectStdio(t, m, tr.root)
			outs := []string{
				mustCall(t, cs, "fs_glob", map[string]any{"pattern": "**/*"}),
				mustCall(t, cs, "fs_grep", map[string]any{"pattern": needle}),
				mustCall(t, cs, "fs_grep", map[string]any{"pattern": needle, "output_mode": "count"}),
				mustCall(t, cs, "fs_grep", map[string]any{"pattern": needle, "output_mode": "content"}),
			}
			for _, out := range outs {
				for _, line := range strings.Split(out, "\n") {
					if strings.HasPrefix(line, "/etc/passwd") || strings.ContainsAny(line, "\t\x1b") {
						t.Errorf("a file name forged or broke a line %q in:\n%s", line, out)
					}
				}
				if !strings.Contains(out, tr.root+`/sp\n/etc/passwd`) || !strings.Contains(out, tr.root+`/tab\there\x1b[2J`) {
					t.Errorf("escaped names missing from:\n%s", out)
				}
			}
		})
	}
}

// TestGrepPatternOver128KiBWorks: a pattern longer than one argument may
// be (128 KiB on Linux) works on the rg backend too, and one with a line
// break keeps its meaning (rg reads such a pattern from a pipe, one per
// line, so the break is passed as an escape).
func TestGrepPatternOver128KiBWorks(t *testing.T) {
	tr := newTree(t)
	filler := strings.Repeat("zq", 100<<10)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			cs := connectStdio(t, m, tr.root)
			if out := mustCall(t, cs, "fs_grep", map[string]any{"pattern": "needle one|" + filler, "output_mode": "content"}); out != tr.root+"/a.txt:2:needle one" {
				t.Errorf("long pattern: %q", out)
			}
			if out := mustCall(t, cs, "fs_grep", map[string]any{"pattern": "needle one\nbeta|" + filler, "multiline": true, "output_mode": "content"}); out != tr.root+"/a.txt:2:needle one\n"+tr.root+"/a.txt:3:beta" {
				t.Errorf("long multiline pattern with a line break: %q", out)
			}
			if out := mustCall(t, cs, "fs_grep", map[string]any{"pattern": "e one\nbe" + filler, "fixed_strings": true, "multiline": true}); out != "No matches found." {
				t.Errorf("long fixed string with a line break: %q", out)
			}
			long := "needle one\nbeta\n" + strings.Repeat("x", 200<<10)
			write(t, tr.path("long.txt"), long)
			defer os.Remove(tr.path("long.txt"))
			if out := mustCall(t, cs, "fs_grep", map[string]any{"pattern": long, "fixed_strings": true, "multiline": true}); out != tr.root+"/long.txt" {
				t.Errorf("long fixed string with line breaks: %q", out)
			}
		})
	}
}
