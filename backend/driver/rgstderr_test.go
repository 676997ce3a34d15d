package driver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
)

// TestRGStderrCountsTooLongInBoundedMemory: rg's messages, each longer
// than the kept head and split across writes anywhere, are told apart by
// their ends: file errors counted, ENAMETOOLONG among them, a name with a
// newline counted once, and only 4 KiB of text kept.
func TestRGStderrCountsTooLongInBoundedMemory(t *testing.T) {
	if backend.ErrnoTooLong < 0 {
		t.Skip("no PATH_MAX rule here")
	}
	long := "./" + strings.Repeat("d/", 3000)
	msgs := fmt.Sprintf("%s: File name too long (os error %d)\n", long, backend.ErrnoTooLong) +
		"rg: ./x: Permission denied (os error 13)\n" +
		fmt.Sprintf("./new\nline: File name too long (os error %d)\n", backend.ErrnoTooLong) +
		fmt.Sprintf("%s: File name too long (os error %d)", long, backend.ErrnoTooLong) // no final newline
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
