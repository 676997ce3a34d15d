package fault_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/fsmcp/fsmcp/fault"
)

type outside struct{ p string }

func (o *outside) Error() string    { return "outside " + o.p }
func (o *outside) Kind() fault.Kind { return fault.Outside }
func (o *outside) Where() string    { return o.p }

func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind fault.Kind
		path string
	}{
		{fault.Errorf(fault.NotUnique, "/a", "found %d times", 2), fault.NotUnique, "/a"},
		{fmt.Errorf("edit 1 of 2: %w", fault.Errorf(fault.Binary, "/b", "binary")), fault.Binary, "/b"},
		{fmt.Errorf("wrapped: %w", &outside{"/c"}), fault.Outside, "/c"},
		{&fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}, fault.NotFound, ""},
		{context.DeadlineExceeded, fault.Timeout, ""},
		{errors.New("disk on fire"), fault.Other, ""},
	} {
		if k := fault.KindOf(c.err); k != c.kind {
			t.Errorf("KindOf(%v) = %v, want %v", c.err, k, c.kind)
		}
		if p := fault.PathOf(c.err); p != c.path {
			t.Errorf("PathOf(%v) = %q, want %q", c.err, p, c.path)
		}
	}
	if e := fault.Errorf(fault.NotFound, "/x", "file not found: %s", "/x"); !errors.Is(e, fs.ErrNotExist) || e.Error() != "file not found: /x" {
		t.Errorf("NotFound error: %v", e)
	}
}
