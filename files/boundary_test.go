package files

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/sandbox"
)

// boundaryFiles are contents whose lines end on, just before and just after
// the buffer sizes the line readers use (4 KiB chunks, 64 KiB buffers, 1 MiB),
// with and without a final newline, and with "\r\n" split across a boundary.
func boundaryFiles() map[string]string {
	out := map[string]string{}
	for _, size := range []int{4 << 10, 64 << 10, 128 << 10, 1 << 20} {
		for _, d := range []int{-2, -1, 0, 1, 2} {
			n := size + d
			long := strings.Repeat("y", n)
			out[fmt.Sprintf("one line of %d", n)] = long
			out[fmt.Sprintf("one line of %d, newline", n)] = long + "\n"
			out[fmt.Sprintf("first then %d", n)] = "first\n" + long
			out[fmt.Sprintf("first then %d, newline", n)] = "first\n" + long + "\n"
			out[fmt.Sprintf("%d then last", n)] = long + "\nlast"
			// "\r" is the boundary's last byte and "\n" the next one's first.
			out[fmt.Sprintf("crlf at %d", n)] = strings.Repeat("c", n-1) + "\r\nnext\r\n"
			out[fmt.Sprintf("crlf at %d, no final", n)] = strings.Repeat("c", n-1) + "\r\nnext"
		}
	}
	out["empty"] = ""
	out["one newline"] = "\n"
	out["two newlines"] = "\n\n"
	return out
}

// wantLines splits s the way every line reader must: at "\n", a final line
// without one still counted, "\r" before "\n" dropped.
func wantLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if strings.HasSuffix(s, "\n") {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// TestReadLinesAtBufferBoundaries pins issue 20's wrong answer: a final line
// ending exactly on a 64 KiB boundary was not counted, so a one-line file of
// 65,536 bytes read as empty.
func TestReadLinesAtBufferBoundaries(t *testing.T) {
	const maxLine = 4 << 20
	for name, content := range boundaryFiles() {
		want := wantLines(content)
		l, err := ReadLines(strings.NewReader(content), 1, 1<<30, maxLine, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if l.Total != len(want) {
			t.Errorf("%s: Total = %d, want %d", name, l.Total, len(want))
			continue
		}
		if len(l.Text) != len(want) {
			t.Errorf("%s: %d lines shown, want %d", name, len(l.Text), len(want))
			continue
		}
		for i := range want {
			if l.Text[i] != want[i] {
				t.Errorf("%s: line %d is %d bytes, want %d", name, i+1, len(l.Text[i]), len(want[i]))
			}
		}
		// The last line alone, by offset.
		if len(want) > 0 {
			last, _ := ReadLines(strings.NewReader(content), len(want), 1, maxLine, 0)
			if len(last.Text) != 1 || last.Text[0] != want[len(want)-1] {
				t.Errorf("%s: reading the last line by offset gave %d lines", name, len(last.Text))
			}
		}
	}
}

// TestHeadTailAtBufferBoundaries runs the same contents through the
// reference profile's head and tail readers.
func TestHeadTailAtBufferBoundaries(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	sb := newBoundarySandbox(t, base)
	for name, content := range boundaryFiles() {
		path := filepath.Join(base, "f")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		p := resolve(t, sb, path)
		for _, n := range []int{1, 2, 3} {
			h, err := Head(p, n, 0)
			if err != nil {
				t.Fatalf("%s: head: %v", name, err)
			}
			// Head keeps a "\r" before "\n" (the original does too).
			raw := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
			if content == "" {
				raw = nil
			}
			if got, w := h, strings.Join(raw[:min(n, len(raw))], "\n"); got != w {
				t.Errorf("%s: head %d = %d bytes, want %d", name, n, len(got), len(w))
			}
			tl, err := Tail(p, n, 0)
			if err != nil {
				t.Fatalf("%s: tail: %v", name, err)
			}
			// Tail gives the last n pieces split at "\n" (the original's rule).
			pieces := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
			if w := strings.Join(pieces[max(0, len(pieces)-n):], "\n"); tl != w {
				t.Errorf("%s: tail %d = %d bytes, want %d", name, n, len(tl), len(w))
			}
		}
	}
}

func newBoundarySandbox(t *testing.T, root string) *sandbox.Sandbox {
	t.Helper()
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}
