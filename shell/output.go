//go:build unix

package shell

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// capture keeps the first and the last part of a stream of bytes and
// counts the characters in between, so a command's output of any size
// costs a bounded amount of memory: at most utf8.UTFMax bytes per kept
// character on each side.
//
// Characters are counted as UTF-8 sequence starts (every byte that is not
// a continuation byte), which stays exact when a character is split
// across two writes.
type capture struct {
	headChars, tailChars int

	head      []byte // the first bytes, up to headChars characters
	headCount int    // characters in head
	headDone  bool   // head is full; everything else goes to the ring

	ring  []byte // the last len(ring) bytes written after head, circular
	next  int    // index in ring of the next byte to write
	full  bool   // ring has wrapped
	total int    // characters written in all
	cont  int    // continuation bytes seen since the last character start
}

func newCapture(maxChars int) *capture {
	head := maxChars / 2
	tail := maxChars - head
	return &capture{
		headChars: head,
		tailChars: tail,
		head:      make([]byte, 0, 1024),
		ring:      make([]byte, tail*utf8.UTFMax),
	}
}

func isCharStart(b byte) bool { return b&0xC0 != 0x80 }

// charStart reports whether b starts a character. A run of continuation
// bytes longer than a valid UTF-8 sequence allows starts a new
// "character" every utf8.UTFMax bytes, so invalid input stays bounded too.
func (c *capture) charStart(b byte) bool {
	if isCharStart(b) || c.cont == utf8.UTFMax-1 {
		c.cont = 0
		return true
	}
	c.cont++
	return false
}

// Write never fails.
func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	split := -1 // where head fills up, if in p
	for i, b := range p {
		if !c.charStart(b) {
			continue
		}
		c.total++
		if !c.headDone && split < 0 {
			if c.headCount == c.headChars {
				split = i
			} else {
				c.headCount++
			}
		}
	}
	if !c.headDone {
		if split < 0 {
			c.head = append(c.head, p...)
			return n, nil
		}
		c.head = append(c.head, p[:split]...)
		c.headDone = true
		p = p[split:]
	}
	if len(p) == 0 || len(c.ring) == 0 {
		return n, nil
	}
	if len(p) >= len(c.ring) {
		copy(c.ring, p[len(p)-len(c.ring):])
		c.next, c.full = 0, true
		return n, nil
	}
	k := copy(c.ring[c.next:], p)
	if k < len(p) {
		copy(c.ring, p[k:])
		c.full = true
	}
	c.next = (c.next + len(p)) % len(c.ring)
	if c.next == 0 && k == len(p) {
		c.full = true
	}
	return n, nil
}

// tail returns the bytes in the ring in order.
func (c *capture) tail() []byte {
	if !c.full {
		return c.ring[:c.next]
	}
	out := make([]byte, 0, len(c.ring))
	out = append(out, c.ring[c.next:]...)
	return append(out, c.ring[:c.next]...)
}

// result returns the kept text and how many characters were dropped from
// the middle (0 when everything fits).
func (c *capture) result() (text string, dropped int) {
	if c.total <= c.headChars+c.tailChars {
		// Everything is still held: head plus a ring that never had to
		// give anything up (it holds up to tailChars characters of any
		// width).
		return string(c.head) + string(c.tail()), 0
	}
	t := c.tail()
	// Keep the last tailChars characters of the ring.
	start, count := len(t), 0
	for start > 0 && count < c.tailChars {
		start--
		if isCharStart(t[start]) {
			count++
		}
	}
	dropped = c.total - c.headCount - count
	var b strings.Builder
	b.Grow(len(c.head) + len(t) - start + 80)
	b.Write(c.head)
	fmt.Fprintf(&b, "\n\n... [output truncated: %d characters dropped from the middle] ...\n\n", dropped)
	b.Write(t[start:])
	return b.String(), dropped
}
