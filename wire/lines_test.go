package wire

import (
	"io"
	"strings"
	"testing"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("z", 100)
	lr := newLineReader(strings.NewReader("a\r\n\n"+long+"\nexact\n"+"last"), 5)
	for _, want := range []struct {
		line    string
		tooLong bool
	}{{"a", false}, {"", false}, {long[:min(len(long), headSize)], true}, {"exact", false}, {"last", false}} {
		line, tooLong, err := lr.next()
		if err != nil || string(line) != want.line || tooLong != want.tooLong {
			t.Fatalf("next() = %q %v %v, want %q %v", line, tooLong, err, want.line, want.tooLong)
		}
	}
	if _, _, err := lr.next(); err != io.EOF {
		t.Fatalf("after the last line: %v, want io.EOF", err)
	}
}

// A line far over the bound is dropped without being held whole.
func TestLineReaderBoundedMemory(t *testing.T) {
	const size = 8 << 20
	lr := newLineReader(io.MultiReader(&repeat{n: size}, strings.NewReader("\nnext\n")), 1024)
	line, tooLong, err := lr.next()
	if err != nil || !tooLong || len(line) > headSize || cap(line) > 2*headSize {
		t.Fatalf("oversized line: len %d cap %d tooLong %v err %v", len(line), cap(line), tooLong, err)
	}
	if line, _, _ := lr.next(); string(line) != "next" {
		t.Fatalf("the line after: %q", line)
	}
}

// repeat yields n bytes of 'x'.
type repeat struct{ n int }

func (r *repeat) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	r.n -= k
	return k, nil
}
