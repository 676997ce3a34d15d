package files

import (
	"container/heap"
	"context"
	"errors"
	"sort"
	"time"

	"github.com/fsmcp/fsmcp/backend"
)

// DefaultGlobLimit is how many files Glob keeps when no limit is given.
const DefaultGlobLimit = 1000

// GlobOrder is the order Glob ranks files in.
type GlobOrder int

const (
	Newest GlobOrder = iota // newest modification first, then by path (Claude Code's Glob)
	ByPath                  // by path
)

// GlobOptions tune a Glob.
type GlobOptions struct {
	Limit int // files kept (<= 0: DefaultGlobLimit); the rest are counted
	Order GlobOrder
}

// Globbed is a ranked glob result.
type Globbed struct {
	Files []backend.File // at most Limit, in Order
	Total int            // every match found
	// Partial: the time limit ran out or the call was cancelled, so
	// Files and Total cover the part searched.
	Partial bool
	// TooLong is the number of entries skipped as backend.TooLong.
	TooLong int64
	// KeptAt, when set, is when the result this page comes from was
	// searched: one kept from an earlier page (backend.KeptNote).
	KeptAt time.Time
}

// Truncated reports whether matches exist beyond those kept.
func (g *Globbed) Truncated() bool { return g.Total > len(g.Files) }

// Glob runs q on s and keeps the first Limit files in Order, in memory
// bounded by Limit. A stopped search is a Partial result, not an error.
func Glob(ctx context.Context, s backend.Searcher, q backend.GlobQuery, opt GlobOptions) (*Globbed, error) {
	limit := opt.Limit
	if limit <= 0 {
		limit = DefaultGlobLimit
	}
	before := newer
	if opt.Order == ByPath {
		before = func(a, b backend.File) bool { return a.Path < b.Path }
	}
	h := &fileHeap{before: before}
	total := 0
	if q.Skipped == nil {
		q.Skipped = new(backend.Skipped)
	}
	// A kept result too big to keep whole keeps its first files in this
	// order, and says how many rank after them (queue.Pages).
	q.Order, q.Keep, q.Beyond, q.Kept = before, limit, new(backend.Skipped), new(backend.Kept)
	err := s.Glob(ctx, q, func(f backend.File) error {
		total++
		if h.Len() < limit {
			heap.Push(h, f)
		} else if before(f, h.files[0]) {
			h.files[0] = f
			heap.Fix(h, 0)
		}
		return nil
	})
	g := &Globbed{Total: total + int(q.Beyond.Count()), TooLong: q.Skipped.Count(), KeptAt: q.Kept.At()}
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			return nil, err
		}
		g.Partial = true
	}
	g.Files = h.files
	sort.Slice(g.Files, func(i, j int) bool { return before(g.Files[i], g.Files[j]) })
	return g, nil
}

// newer orders files newest first, then by path.
func newer(a, b backend.File) bool {
	if !a.ModTime.Equal(b.ModTime) {
		return a.ModTime.After(b.ModTime)
	}
	return a.Path < b.Path
}

// fileHeap's root is the kept file that ranks last, so the best Limit
// files are kept in bounded memory.
type fileHeap struct {
	files  []backend.File
	before func(a, b backend.File) bool
}

func (h *fileHeap) Len() int           { return len(h.files) }
func (h *fileHeap) Less(i, j int) bool { return h.before(h.files[j], h.files[i]) }
func (h *fileHeap) Swap(i, j int)      { h.files[i], h.files[j] = h.files[j], h.files[i] }
func (h *fileHeap) Push(x any)         { h.files = append(h.files, x.(backend.File)) }
func (h *fileHeap) Pop() any {
	f := h.files[len(h.files)-1]
	h.files = h.files[:len(h.files)-1]
	return f
}
