package queue

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
)

// waitQueued waits until n searches wait in a (an event, not a time).
func waitQueued(t *testing.T, a *Admission, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; { // only bounds a hang
		a.mu.Lock()
		got := 0
		for _, q := range a.queues {
			got += len(q)
		}
		a.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d queued, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// A session's burst does not starve another session: freed slots go to
// the sessions in turn, each session's searches in their order.
func TestAdmissionServesSessionsInTurn(t *testing.T) {
	a := NewAdmission(1, time.Hour)
	hold, err := a.enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 4)
	start := func(session, name string) {
		go func() {
			release, err := a.enter(WithOwner(context.Background(), session))
			if err != nil {
				order <- "error " + err.Error()
				return
			}
			order <- name
			release()
		}()
	}
	start("A", "a1")
	waitQueued(t, a, 1)
	start("A", "a2")
	waitQueued(t, a, 2)
	start("A", "a3")
	waitQueued(t, a, 3)
	start("B", "b1")
	waitQueued(t, a, 4)
	hold()
	var got []string
	for range 4 {
		got = append(got, <-order)
	}
	want := []string{"a1", "b1", "a2", "a3"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("served %v, want %v", got, want)
		}
	}
	for deadline := time.Now().Add(time.Minute); ; { // the last release may still be returning
		a.mu.Lock()
		running, turns, queues := a.running, len(a.turns), len(a.queues)
		a.mu.Unlock()
		if running == 0 && turns == 0 && queues == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("left running=%d turns=%d queues=%d", running, turns, queues)
		}
		time.Sleep(time.Millisecond)
	}
}

// A search that waited past the queue bound is refused as busy, saying
// to retry, and leaves no trace in the queue.
func TestAdmissionRefusesBusyAfterTheQueueBound(t *testing.T) {
	a := NewAdmission(1, time.Millisecond)
	hold, _ := a.enter(context.Background())
	defer hold()
	_, err := a.enter(context.Background())
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "retry") {
		t.Fatalf("err = %v, want busy, retry", err)
	}
	if len(a.queues) != 0 || len(a.turns) != 0 {
		t.Fatalf("queue not cleaned: %v %v", a.queues, a.turns)
	}
}

// The call's clock stops while it waits and runs again when admitted.
func TestQueuedSearchClockStartsWhenItRuns(t *testing.T) {
	a := NewAdmission(1, time.Hour)
	hold, _ := a.enter(context.Background())
	ctx, cancel := WithCallTimeout(context.Background(), time.Hour)
	defer cancel()
	c := clockOf(ctx)
	done := make(chan error, 1)
	go func() {
		release, err := a.enter(ctx)
		if err == nil {
			release()
		}
		done <- err
	}()
	waitQueued(t, a, 1)
	for deadline := time.Now().Add(time.Minute); ; { // the hold follows the enqueue
		c.mu.Lock()
		held := c.held
		c.mu.Unlock()
		if held == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the clock was not stopped while queued")
		}
		time.Sleep(time.Millisecond)
	}
	hold()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held != 0 || c.err != nil {
		t.Fatalf("after admission held=%d err=%v", c.held, c.err)
	}
}

func TestCallTimeoutEndsAsDeadlineExceeded(t *testing.T) {
	ctx, cancel := WithCallTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	child, cc := context.WithCancel(ctx)
	defer cc()
	<-child.Done()
	if ctx.Err() != context.DeadlineExceeded || child.Err() != context.DeadlineExceeded {
		t.Fatalf("errs %v %v", ctx.Err(), child.Err())
	}
	parent, pc := context.WithCancel(context.Background())
	ctx2, cancel2 := WithCallTimeout(parent, time.Hour)
	defer cancel2()
	pc()
	<-ctx2.Done()
	if ctx2.Err() != context.Canceled {
		t.Fatalf("err %v", ctx2.Err())
	}
}

// stubSearcher answers at once; it counts the searches that reached it.
type stubSearcher struct {
	backend.Searcher
	greps chan struct{}
}

func (s stubSearcher) Grep(context.Context, backend.GrepQuery, backend.Sink) error {
	s.greps <- struct{}{}
	return nil
}

// Enter holds a slot for a whole call: the searches that call then makes
// through the admission's Searcher take no second slot (with one slot,
// they would wait for ever), while another call waits for it, and past
// the wait is refused as busy.
func TestEnterHoldsTheSlotForTheCall(t *testing.T) {
	a := NewAdmission(1, 50*time.Millisecond)
	s := a.Searcher(stubSearcher{greps: make(chan struct{}, 2)})
	ctx, release, err := a.Enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Grep(ctx, backend.GrepQuery{}, nil); err != nil {
		t.Fatalf("a search of the call that holds the slot: %v", err)
	}
	if _, again, err := a.Enter(ctx); err != nil {
		t.Fatalf("entering again in the call that holds the slot: %v", err)
	} else {
		again()
	}
	if _, _, err := a.Enter(WithOwner(context.Background(), "other")); !errors.Is(err, ErrBusy) {
		t.Fatalf("another call while the slot is held: %v, want busy", err)
	}
	if err := s.Grep(WithOwner(context.Background(), "other"), backend.GrepQuery{}, nil); !errors.Is(err, ErrBusy) {
		t.Fatalf("another call's search while the slot is held: %v, want busy", err)
	}
	release()
	if err := s.Grep(context.Background(), backend.GrepQuery{}, nil); err != nil {
		t.Fatalf("after release: %v", err)
	}
}
