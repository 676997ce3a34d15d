package watch

import (
	"errors"
	"testing"
)

func TestSetBoundsIDsAndReplaces(t *testing.T) {
	dir, sb := newDir(t)
	open := func() *Watcher {
		p, err := sb.Resolve(dir)
		if err != nil {
			t.Fatal(err)
		}
		w, err := New(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	s := NewSet(2)
	defer s.Close()
	a, b := open(), open()
	if id, err := s.Add("", a); err != nil || id != "w1" {
		t.Fatalf("Add = %q, %v; want w1", id, err)
	}
	if id, err := s.Add("cb", b); err != nil || id != "cb" {
		t.Fatalf("Add = %q, %v; want cb", id, err)
	}
	if !s.Full() {
		t.Fatal("a set of 2 holding 2 is not full")
	}
	c := open()
	defer c.Close()
	if _, err := s.Add("", c); !errors.Is(err, ErrSetFull) {
		t.Fatalf("a third watcher: %v, want ErrSetFull", err)
	}
	// A taken id is replaced, even when the set is full, and the old
	// watcher is closed.
	d := open()
	if _, err := s.Add("cb", d); err != nil {
		t.Fatalf("replacing cb: %v", err)
	}
	if w, _ := s.Get("cb"); w != d {
		t.Fatal("cb is not the new watcher")
	}
	if ok, err := s.Stop("w1"); !ok || err != nil {
		t.Fatalf("Stop(w1) = %v, %v", ok, err)
	}
	if ok, _ := s.Stop("w1"); ok {
		t.Fatal("w1 stopped twice")
	}
	if _, ok := s.Get("w1"); ok {
		t.Fatal("w1 is still there")
	}
}
