package files

import (
	"errors"
	"fmt"
	"sync"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// LoadBudget bounds what one call loads into memory across every file it
// reads whole: a tool that takes a list of paths (naming one 10 MiB file
// forty times costs a 2 KB request) loads at most the budget, not forty
// files. Files past it are refused one by one, each with a sentence that
// says why. It is safe for concurrent use.
type LoadBudget struct {
	mu      sync.Mutex
	perFile int64 // a file over this is refused whatever is left (<= 0: none)
	left    int64 // < 0: no budget
	max     int64
}

// NewLoadBudget is a call's budget of perCall bytes (<= 0: none), each file
// at most perFile bytes (<= 0: no limit).
func NewLoadBudget(perFile, perCall int64) *LoadBudget {
	left := int64(-1)
	if perCall > 0 {
		left = perCall
	}
	return &LoadBudget{perFile: perFile, left: left, max: perCall}
}

// ReadWhole is ReadWhole within the file limit and what is left of the
// budget, which the file's bytes are then charged to. Errors: ReadWhole's,
// and TooLarge (a BudgetError) once the call has loaded its budget.
func (b *LoadBudget) ReadWhole(p *sandbox.Path) (*Whole, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	limit := b.perFile
	if b.left >= 0 && (limit <= 0 || b.left < limit) {
		limit = b.left
	}
	if limit == 0 { // the budget is spent: not even an open
		return nil, &BudgetError{Path: p.Abs, Max: b.max}
	}
	w, err := ReadWhole(p, limit)
	var tl *sandbox.TooLargeError
	if errors.As(err, &tl) && limit != b.perFile && (b.perFile <= 0 || tl.Size <= b.perFile) {
		return nil, &BudgetError{Path: p.Abs, Size: tl.Size, Max: b.max}
	}
	if err != nil {
		return nil, err
	}
	if b.left >= 0 {
		b.left -= int64(len(w.Data))
	}
	return w, nil
}

// BudgetError says a file was not read because the call has already
// loaded as much as one call may.
type BudgetError struct {
	Path      string
	Size, Max int64 // Size: the file's, when known
}

func (e *BudgetError) Kind() fault.Kind { return fault.TooLarge }
func (e *BudgetError) Where() string    { return e.Path }

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%s was not read: one call loads at most %d bytes across all its files (--max-file-size), and this call has used them; read it in a call of its own or with fewer files", e.Path, e.Max)
}
