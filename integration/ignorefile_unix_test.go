//go:build unix

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ignore files planted as traps: FIFOs, devices, links out, huge files.
// An ignore file is read only if it is a regular file inside the roots or
// the repository, without following a link, without blocking, and up to
// 1 MiB (SPEC §3).

// TestIgnoreFileFIFODoesNotBlock: a .gitignore/.ignore that is a FIFO, in
// the root or in an ancestor of it (as /tmp/.gitignore would be), leaves
// fs_list, fs_glob and fs_grep answering. The native walker never opens
// it; rg, which opens a FIFO inside a root blocking, is cut by --timeout.
func TestIgnoreFileFIFODoesNotBlock(t *testing.T) {
	tr := newTree(t)
	for _, p := range []string{filepath.Join(tr.base, ".gitignore"), filepath.Join(tr.base, ".ignore"), tr.path("sub/deeper/.ignore")} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			cs := connectStdio(t, m, "--timeout", "3s", tr.root)
			start := time.Now()
			if out := mustCall(t, cs, "fs_list", map[string]any{"path": tr.path("sub/deeper")}); !strings.Contains(out, "d.md") {
				t.Errorf("fs_list = %q", out)
			}
			glob := mustCall(t, cs, "fs_glob", map[string]any{"pattern": "**/*.md"})
			grep := mustCall(t, cs, "fs_grep", map[string]any{"pattern": "deep"})
			if m.name == "norg" {
				for _, out := range []string{glob, grep} {
					if !strings.Contains(out, "sub/deeper/d.md") || strings.Contains(out, "partial") {
						t.Errorf("native search with FIFO ignore files = %q", out)
					}
				}
			}
			if el := time.Since(start); el > 20*time.Second {
				t.Errorf("three calls took %v with --timeout 3s", el)
			}
		})
	}
}

// TestIgnoreFileLinkedOutIsNotRead: ignore files that are symlinks — to
// /dev/zero (would exhaust memory), to /proc/self/fd/0 (would swallow the
// client's next request) and to a file outside the root (would make
// fs_glob an oracle for its lines) — are not read: every file is listed
// and the server answers every call.
func TestIgnoreFileLinkedOutIsNotRead(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.outside, "rules"), "a.txt\nb.go\n")
	symlink(t, filepath.Join(tr.outside, "rules"), tr.path(".ignore"))
	symlink(t, "/dev/zero", tr.path("sub/.ignore"))
	symlink(t, "/proc/self/fd/0", tr.path("sub/deeper/.rgignore"))
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			cs := connectStdio(t, m, "--timeout", "10s", tr.root)
			for i := 0; i < 2; i++ {
				glob := mustCall(t, cs, "fs_glob", map[string]any{"pattern": "**/*"})
				for _, want := range []string{"/a.txt", "/b.go", "sub/c.go", "sub/deeper/d.md"} {
					if !strings.Contains(glob, want) {
						t.Errorf("fs_glob misses %s (a linked ignore file was read):\n%s", want, glob)
					}
				}
				if out := mustCall(t, cs, "fs_grep", map[string]any{"pattern": needle, "path": tr.path("sub")}); !strings.Contains(out, "sub/deeper/d.md") {
					t.Errorf("fs_grep = %q", out)
				}
				if out := mustCall(t, cs, "fs_list", map[string]any{"path": tr.path("sub/deeper")}); !strings.Contains(out, "d.md") {
					t.Errorf("fs_list = %q", out)
				}
			}
		})
	}
}

// TestIgnoreFileOver1MiBIsLeftOut: the native walker and fs_list read an
// ignore file only up to 1 MiB; a larger one is left out whole.
func TestIgnoreFileOver1MiBIsLeftOut(t *testing.T) {
	tr := newTree(t)
	big := "a.txt\n" + strings.Repeat("#", 2<<20) + "\n"
	if err := os.WriteFile(tr.path(".ignore"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range modes(t) {
		if m.name != "norg" {
			continue // rg reads it whole; README says so
		}
		cs := connectStdio(t, m, tr.root)
		if out := mustCall(t, cs, "fs_glob", map[string]any{"pattern": "*.txt"}); !strings.Contains(out, "/a.txt") {
			t.Errorf("a 2 MiB .ignore was applied: %q", out)
		}
	}
}
