package backend

import (
	"strings"
	"testing"
)

// TestTooLongAtPathMax: the rule is rg's, "./" + the path with its NUL
// must fit in PATH_MAX.
func TestTooLongAtPathMax(t *testing.T) {
	if PathMax == 0 {
		t.Skip("no PATH_MAX rule here")
	}
	if TooLong(PathMax-3) || !TooLong(PathMax-2) {
		t.Errorf("TooLong(%d)=%v TooLong(%d)=%v", PathMax-3, TooLong(PathMax-3), PathMax-2, TooLong(PathMax-2))
	}
	if SkippedNote(0) != "" || !strings.HasPrefix(SkippedNote(1), "(1 path was skipped") || !strings.HasPrefix(SkippedNote(3), "(3 paths were skipped") {
		t.Errorf("notes: %q %q", SkippedNote(1), SkippedNote(3))
	}
}
