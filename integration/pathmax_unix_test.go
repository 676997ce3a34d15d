//go:build unix

package integration

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// pathMax is the PATH_MAX fsmcp and rg stop at (backend.PathMax).
func pathMax() int {
	if runtime.GOOS == "linux" {
		return 4096
	}
	return 1024
}

// deepPathTree builds in root, with mkdirat and openat, a chain of
// directories reaching just short of PATH_MAX below root and at its end
// a file one byte short of it (found), a file one byte over and a
// directory one byte over holding a file (both skipped: 2 entries).
func deepPathTree(t *testing.T, root string) {
	t.Helper()
	limit := pathMax() - len("./") // the shortest path below root that is skipped
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { unix.Close(fd) }()
	file := func(dirfd int, name string) {
		f, err := unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		unix.Write(f, []byte("deep needle\n"))
		unix.Close(f)
	}
	mkdir := func(name string) int {
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		d, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	file(fd, "shallow.txt")
	rel := 0
	for rel+1+50 <= limit-200 {
		d := mkdir(strings.Repeat("d", 50))
		unix.Close(fd)
		fd = d
		rel += 51
	}
	name := func(letter string, n int) string { return strings.Repeat(letter, n-rel-len(".txt")) + ".txt" }
	file(fd, name("f", limit-1))
	file(fd, name("F", limit))
	d := mkdir(name("G", limit))
	file(d, "x.txt")
	unix.Close(d)
}

// TestPathMaxSkippedAndSaid: fs_grep and fs_glob skip the paths rg
// cannot open (PATH_MAX bytes or more below the search path), with rg and
// without it, give the same answer and say how many they skipped.
func TestPathMaxSkippedAndSaid(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	deepPathTree(t, root)
	note := "(2 paths were skipped: "
	answers := map[string]string{}
	for _, m := range modes(t) {
		backends := [][]string{nil}
		if m.name == "rg" {
			backends = append(backends, []string{"--search-backend", "rg"}) // rg's own fs_glob too
		}
		for _, args := range backends {
			cs := connectStdio(t, m, append(args, root)...)
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"fs_grep", map[string]any{"pattern": "needle"}},
				{"fs_grep", map[string]any{"pattern": "needle", "output_mode": "content"}},
				{"fs_glob", map[string]any{"pattern": "**/*.txt"}},
			} {
				out := mustCall(t, cs, c.tool, c.args)
				if !strings.Contains(out, note) || !strings.Contains(out, "shallow.txt") || !strings.Contains(out, "fff.txt") {
					t.Errorf("%s %v %s(%v): want both files it can open and the note %q, got:\n%.300s", m.name, args, c.tool, c.args, note, out[max(0, len(out)-300):])
				}
				if strings.Contains(out, "FFF") || strings.Contains(out, "x.txt") {
					t.Errorf("%s %v %s(%v): listed a path past PATH_MAX", m.name, args, c.tool, c.args)
				}
				key := c.tool + " " + c.args["pattern"].(string) + " " + fmt.Sprint(c.args["output_mode"])
				if prev, ok := answers[key]; ok && prev != out {
					t.Errorf("%s %v %s(%v): the answer differs from another backend's:\n%s\nvs\n%s", m.name, args, c.tool, c.args, out[max(0, len(out)-300):], prev[max(0, len(prev)-300):])
				}
				answers[key] = out
			}
			// A later page, served from the kept result, says it too.
			if out := mustCall(t, cs, "fs_glob", map[string]any{"pattern": "**/*.txt", "offset": 1}); !strings.Contains(out, note) {
				t.Errorf("%s %v: fs_glob's second page lost the note: %.300s", m.name, args, out)
			}
		}
	}
}
