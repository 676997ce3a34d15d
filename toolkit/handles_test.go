package toolkit

import (
	"strings"
	"testing"
	"time"
)

// closeSignal is a value whose Close is seen on a channel.
type closeSignal chan struct{}

func (c closeSignal) Close() error { close(c); return nil }

func value(c closeSignal) func() (closer, error) { return func() (closer, error) { return c, nil } }

// TestHandlesBoundedLeastRecentlyUsedEnded: minting past the bound ends
// the handle unused longest (its values closed) and keeps the others; a
// handle in a call is never the one ended, and with all in calls the mint
// is refused.
func TestHandlesBoundedLeastRecentlyUsedEnded(t *testing.T) {
	s := NewSessions()
	defer s.Close()
	s.SetHandleBounds(2, time.Hour)
	a, _ := s.MintHandle()
	b, _ := s.MintHandle()
	ca, cb := make(closeSignal), make(closeSignal)
	_, relA, err := s.getByHandle(a, "k", value(ca))
	if err != nil {
		t.Fatal(err)
	}
	_, relB, _ := s.getByHandle(b, "k", value(cb))
	relB() // b is idle, a still in its call
	c, err := s.MintHandle()
	if err != nil {
		t.Fatal(err)
	}
	<-cb // b, the idle one, was ended
	if _, _, err := s.getByHandle(b, "k", value(make(closeSignal))); err == nil || !strings.Contains(err.Error(), "unknown session") {
		t.Errorf("an ended handle: %v", err)
	}
	_, relC, _ := s.getByHandle(c, "k", value(make(closeSignal)))
	if _, err := s.MintHandle(); err == nil || !strings.Contains(err.Error(), "all running a command") {
		t.Errorf("mint with every handle in a call: %v", err)
	}
	relA()
	relC()
	select {
	case <-ca:
		t.Error("a handle in use was ended")
	default:
	}
}

// TestIdleHandleIsReaped: a handle unused for its idle time is ended and
// its values closed; one in a call is not, until the call is done.
func TestIdleHandleIsReaped(t *testing.T) {
	s := NewSessions()
	defer s.Close()
	s.SetHandleBounds(0, time.Hour)
	h, _ := s.MintHandle()
	c := make(closeSignal)
	_, release, err := s.getByHandle(h, "k", value(c))
	if err != nil {
		t.Fatal(err)
	}
	s.SetHandleBounds(0, time.Millisecond) // idle from the end of the call
	release()
	<-c // reaped: the test would hang here otherwise
	if _, _, err := s.getByHandle(h, "k", value(make(closeSignal))); err == nil {
		t.Error("a reaped handle still answered")
	}
}

// TestCloseEndsHandles: Close ends every handle's values.
func TestCloseEndsHandles(t *testing.T) {
	s := NewSessions()
	h, _ := s.MintHandle()
	c := make(closeSignal)
	s.getByHandle(h, "k", value(c))
	s.Close()
	<-c
	if _, err := s.MintHandle(); err == nil {
		t.Error("minted after Close")
	}
}
