package backend

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// What passes between a search and the page cache in front of it
// (backend/queue's Pages): a later page asked for, a kept result handed
// to the Collector whole, and the note that says a page was kept.

// Kept records that a page was served from a result Pages kept, and when
// that result was searched. A nil *Kept records nothing.
type Kept struct{ at atomic.Int64 }

// Set records that the page came from a result searched at t.
func (k *Kept) Set(t time.Time) {
	if k != nil {
		k.at.Store(t.UnixNano())
	}
}

// At is when the kept result served was searched; zero when the answer
// was searched afresh.
func (k *Kept) At() time.Time {
	if k == nil || k.at.Load() == 0 {
		return time.Time{}
	}
	return time.Unix(0, k.at.Load())
}

// KeptNote is the note a page served from a kept result (at: when it was
// searched) ends with: its age, what it may not show (the page cache
// checks each file of the result, not the files that did not match),
// and how to search afresh; "" for a page searched now.
func KeptNote(at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return fmt.Sprintf("(this page is from the result of a search made %s ago, kept for paging: every file on it is unchanged since, but a file rewritten since to match is not on it; offset=0 searches afresh)", max(time.Since(at), 0).Round(time.Second))
}

type laterPage struct{}

// LaterPage marks ctx as asking for a page after the first of a result
// (offset > 0): a result kept from an earlier page may serve it.
func LaterPage(ctx context.Context) context.Context {
	return context.WithValue(ctx, laterPage{}, true)
}

// IsLaterPage reports whether ctx asks for a later page (LaterPage).
func IsLaterPage(ctx context.Context) bool { return ctx.Value(laterPage{}) != nil }

// KeptFile is one file of a grep result kept whole (the page cache's):
// its lines, their texts one after another, and its count.
type KeptFile struct {
	Path  string
	Text  []byte
	Lines []KeptLine
	Count int
}

// KeptLine is one line of a KeptFile; its text ends at End in the file's
// Text, where the line before it ends.
type KeptLine struct {
	Num     int
	End     uint32
	Context bool
}

// Line returns the i'th line's text.
func (f *KeptFile) Line(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = f.Lines[i-1].End
	}
	return f.Text[start:f.Lines[i].End]
}

// FilesTaker is a Sink that can take a whole kept result at once (a
// Collector, and the stop in front of one): the page cache hands it the
// files instead of replaying them line by line.
type FilesTaker interface {
	// TakeFiles takes files, in path order; false: nothing was taken.
	TakeFiles(files []KeptFile) bool
}
