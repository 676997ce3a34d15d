package integration

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReadLineOnBufferBoundary pins issue 20's wrong answer through the built
// binary: a final line ending exactly on 64 KiB (or 128 KiB, 1 MiB) read as
// "(PATH is empty)", and "first\n" + 65,536 bytes showed line 1 only.
func TestReadLineOnBufferBoundary(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	fs := connectStdio(t, m, tr.root)
	ref := connectStdio(t, m, "--profile", "reference", "--max-output", "2000000", tr.root)
	for _, size := range []int{65535, 65536, 65537, 131072, 1 << 20} {
		long := strings.Repeat("y", size)
		for name, content := range map[string]string{"one": long, "two": "first\n" + long} {
			path := filepath.Join(tr.root, "boundary.txt")
			write(t, path, content)
			got := mustCall(t, fs, "fs_read", map[string]any{"file_path": path})
			if strings.Contains(got, "is empty") || !strings.Contains(got, long[:100]) {
				t.Errorf("fs_read of %s line(s), last of %d bytes: %.200q", name, size, got)
			}
			if name == "two" && !strings.Contains(got, "first") {
				t.Errorf("fs_read lost line 1: %.200q", got)
			}
			tail := mustCall(t, ref, "read_text_file", map[string]any{"path": path, "tail": 1})
			if len(tail) != size {
				t.Errorf("read_text_file tail 1 of %s, last of %d bytes: got %d bytes", name, size, len(tail))
			}
			head := mustCall(t, ref, "read_text_file", map[string]any{"path": path, "head": 2})
			if head != content {
				t.Errorf("read_text_file head 2 of %s (%d): got %d bytes", name, size, len(head))
			}
		}
	}
}
