package pattern

import (
	"context"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/fault"
)

// seen is a stage behind the door that records the queries it is handed.
type seen struct{ got []backend.GrepQuery }

func (*seen) Name() string { return "seen" }
func (s *seen) Grep(_ context.Context, q backend.GrepQuery, _ backend.Sink) error {
	s.got = append(s.got, q)
	return nil
}
func (*seen) Glob(context.Context, backend.GlobQuery, func(backend.File) error) error { return nil }

// TestCompiledOnceAtTheDoor: the door compiles the pattern once and the
// stage behind it is handed that value, which Of returns as it is (no
// second compile, the tree and rg's spelling made once); a bad pattern is
// refused at the door, and the stage behind it never asked.
func TestCompiledOnceAtTheDoor(t *testing.T) {
	next := &seen{}
	door := Compiling(next)
	q := backend.GrepQuery{Pattern: `\bfoo\d+`, IgnoreCase: true}
	if err := door.Grep(context.Background(), q, nil); err != nil {
		t.Fatal(err)
	}
	if len(next.got) != 1 {
		t.Fatalf("the stage behind the door was asked %d times", len(next.got))
	}
	carried, ok := next.got[0].Compiled.(*Pattern)
	if !ok || carried == nil {
		t.Fatalf("the query carries %T, not the compiled pattern", next.got[0].Compiled)
	}
	again, err := Of(next.got[0])
	if err != nil || again != carried {
		t.Fatalf("Of compiled again (%p, %v), not the carried %p", again, err, carried)
	}
	if carried.Syntax() == nil || carried.Simple() == nil || carried.Syntax() != again.Syntax() {
		t.Fatal("the syntax tree is not made once with the pattern")
	}
	if want := ForRG(q); carried.RG != want {
		t.Fatalf("RG = %q, want ForRG's %q", carried.RG, want)
	}
	if err := door.Grep(context.Background(), backend.GrepQuery{Pattern: `(?=x)`}, nil); fault.KindOf(err) != fault.Invalid {
		t.Fatalf("a look-ahead at the door: %v, want an invalid-pattern refusal", err)
	}
	if len(next.got) != 1 {
		t.Fatal("a bad pattern reached the stage behind the door")
	}
}
