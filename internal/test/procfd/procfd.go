// Package procfd counts a test process's open descriptors by kind, from
// /proc/self/fd. It is a leaf package so that tests of watch, which
// internal/testenv imports, can use it too.
package procfd

import (
	"os"
	"path/filepath"
	"testing"
)

// Inotify counts this process's inotify descriptors; it skips the test
// where there is no /proc/self/fd.
func Inotify(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("SKIPPED: no /proc/self/fd:", err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}
