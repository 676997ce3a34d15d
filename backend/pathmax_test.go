package backend

import (
	"fmt"
	"strings"
	"testing"
)

// TestRGStderrCountsTooLongInBoundedMemory: rg's messages, each longer
// than the kept head and split across writes anywhere, are told apart by
// their ends: file errors counted, ENAMETOOLONG among them, a name with a
// newline counted once, and only 4 KiB of text kept.
func TestRGStderrCountsTooLongInBoundedMemory(t *testing.T) {
	if errnoTooLong < 0 {
		t.Skip("no PATH_MAX rule here")
	}
	long := "./" + strings.Repeat("d/", 3000)
	msgs := fmt.Sprintf("%s: File name too long (os error %d)\n", long, errnoTooLong) +
		"rg: ./x: Permission denied (os error 13)\n" +
		fmt.Sprintf("./new\nline: File name too long (os error %d)\n", errnoTooLong) +
		fmt.Sprintf("%s: File name too long (os error %d)", long, errnoTooLong) // no final newline
	for _, chunk := range []int{1, 7, 4096, len(msgs)} {
		e := &rgStderr{}
		for s := msgs; s != ""; {
			n := min(chunk, len(s))
			e.Write([]byte(s[:n]))
			s = s[n:]
		}
		e.endLine()
		if e.tooLong != 3 || e.fileErrs != 4 || e.head.Len() != stderrHead || cap(e.tail) > 2*stderrTail {
			t.Errorf("chunk %d: tooLong %d fileErrs %d head %d tail cap %d", chunk, e.tooLong, e.fileErrs, e.head.Len(), cap(e.tail))
		}
	}
	e := &rgStderr{}
	e.Write([]byte("rg: regex parse error:\n    (\n    ^\nerror: unclosed group\n"))
	e.endLine()
	if e.fileErrs != 0 || !strings.HasPrefix(e.head.String(), "rg: regex parse error") {
		t.Errorf("a fatal error read as a file error: %d %q", e.fileErrs, e.head.String())
	}
}

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
