//go:build unix

package shell

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestCaptureMatchesReference writes text of mixed character widths in
// random chunks (splitting characters across writes) and compares with
// cutting the whole text by characters.
func TestCaptureMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "é", "€", "𝄞", "\n", "xyz"}
	for _, n := range []int{0, 5, 9, 10, 11, 50, 1000} {
		var b strings.Builder
		for utf8.RuneCountInString(b.String()) < n {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		text := b.String()
		c := newCapture(10)
		for rest := []byte(text); len(rest) > 0; {
			k := 1 + rng.Intn(7)
			if k > len(rest) {
				k = len(rest)
			}
			c.Write(rest[:k])
			rest = rest[k:]
		}
		got, dropped := c.result()
		r := []rune(text)
		want, wantDropped := text, 0
		if len(r) > 10 {
			wantDropped = len(r) - 10
			want = string(r[:5]) + fmt.Sprintf("\n\n... [output truncated: %d characters dropped from the middle] ...\n\n", wantDropped) + string(r[len(r)-5:])
		}
		if got != want || dropped != wantDropped {
			t.Errorf("n=%d: got %q (%d), want %q (%d)", n, got, dropped, want, wantDropped)
		}
	}
}

// Invalid UTF-8 (endless continuation bytes) must not grow the head.
func TestCaptureBoundedOnInvalidUTF8(t *testing.T) {
	c := newCapture(10)
	junk := []byte(strings.Repeat("\x80", 4096))
	for i := 0; i < 100; i++ {
		c.Write(junk)
	}
	if len(c.head) > 6*utf8.UTFMax || len(c.ring) > 5*utf8.UTFMax {
		t.Fatalf("head %d bytes, ring %d bytes", len(c.head), len(c.ring))
	}
	if _, dropped := c.result(); dropped == 0 {
		t.Fatal("nothing dropped")
	}
}

// When the reading goroutine only gets to run after the deadline, what
// the pipe holds is still read.
func TestFinishDrainReadsWhatIsPending(t *testing.T) {
	for _, closed := range []bool{false, true} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("pending"))
		if closed {
			w.Close()
		}
		r.SetReadDeadline(time.Now().Add(-time.Second))
		var got bytes.Buffer
		err = drain(&got, r)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("drain past the deadline: %v", err)
		}
		lingering := finishDrain(&got, r, err)
		if got.String() != "pending" || lingering == closed {
			t.Errorf("writer closed %v: got %q, lingering %v", closed, got.String(), lingering)
		}
		w.Close()
	}
}
