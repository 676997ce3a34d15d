package queue

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/fsmcp/fsmcp/backend"
)

// Admission bounds the searches (greps and globs) running at once in one
// server: each starts rg or a parallel walk, and a hundred at once ran 95
// rg processes and timed out 99 of them half-done. A search past the bound
// waits in its session's queue; freed slots go to the sessions in turn,
// so one session's burst cannot starve another's single search. The
// call's --timeout does not run while it waits (WithCallTimeout); a
// search that waited longer than the queue bound is refused with
// ErrBusy, never answered partially. Reads and other calls never pass
// through here, so they never wait behind searches.
type Admission struct {
	slots int
	wait  time.Duration

	mu      sync.Mutex
	running int
	queues  map[any][]*waiter // per session, first come first served
	turns   []any             // sessions with waiters, in the order they are served
	idle    *time.Timer       // pending memory return after the last search
}

// idleRelease is how long the server must have run no search before the
// memory a burst of them took is returned to the system: Go keeps freed
// memory for minutes, and a burst of 100 searches left 79 MB resident.
const idleRelease = 5 * time.Second

// releaseIfIdle returns freed memory to the system if still no search
// runs.
func (a *Admission) releaseIfIdle() {
	a.mu.Lock()
	a.idle = nil
	busy := a.running > 0
	a.mu.Unlock()
	if !busy {
		debug.FreeOSMemory()
	}
}

type waiter struct {
	ready   chan struct{} // closed when a slot is granted
	granted bool          // guarded by Admission.mu
}

// DefaultSearches is the default bound of searches running at once: the
// cores (rg and the native walk each use several threads), at least 2.
func DefaultSearches() int { return max(2, runtime.NumCPU()) }

// DefaultSearchWait is how long a search may wait for a slot by default.
const DefaultSearchWait = time.Minute

// NewAdmission returns an admission of slots searches at once (<= 0:
// DefaultSearches) whose queue holds a search at most wait (<= 0:
// DefaultSearchWait).
func NewAdmission(slots int, wait time.Duration) *Admission {
	if slots <= 0 {
		slots = DefaultSearches()
	}
	if wait <= 0 {
		wait = DefaultSearchWait
	}
	return &Admission{slots: slots, wait: wait, queues: map[any][]*waiter{}}
}

// ErrBusy is wrapped by the error of a search that waited past the queue
// bound; its message says to retry.
var ErrBusy = errors.New("the server is busy")

// queueKey is the context key of the session a call came on.
type queueKey struct{}

// WithOwner marks ctx with the owner of the queue its searches wait in:
// session (any comparable value; calls without one share one queue). A queue is what fairness counts: each
// gets its turn, so it must stand for something a flood cannot multiply
// for free (an MCP session, which --max-sessions bounds; a client's
// address), never for one request.
func WithOwner(ctx context.Context, session any) context.Context {
	return context.WithValue(ctx, queueKey{}, session)
}

// HasOwner reports whether ctx is marked with a queue's owner already.
func HasOwner(ctx context.Context) bool { return ctx.Value(queueKey{}) != nil }

// Searcher wraps s so that its searches go through a.
func (a *Admission) Searcher(s backend.Searcher) backend.Searcher { return admitted{s, a} }

// heldKey is the context key of a call that holds a slot of an Admission
// (Enter) for its whole run.
type heldKey struct{}

// Enter waits for a slot for the rest of a call that searches by other
// means than a.Searcher (a profile's tool walking the tree itself), as a
// search through a.Searcher waits: in the call's queue, its clock
// stopped, refused with ErrBusy past the wait. release frees it. The
// context returned holds the slot: searches the call then makes through
// a.Searcher take no second one.
func (a *Admission) Enter(ctx context.Context) (_ context.Context, release func(), err error) {
	if ctx.Value(heldKey{}) == a {
		return ctx, func() {}, nil
	}
	if release, err = a.enter(ctx); err != nil {
		return ctx, nil, err
	}
	return context.WithValue(ctx, heldKey{}, a), release, nil
}

type admitted struct {
	backend.Searcher
	a *Admission
}

func (s admitted) Grep(ctx context.Context, q backend.GrepQuery, sink backend.Sink) error {
	if ctx.Value(heldKey{}) == s.a {
		return s.Searcher.Grep(ctx, q, sink)
	}
	release, err := s.a.enter(ctx)
	if err != nil {
		return err
	}
	defer release()
	return s.Searcher.Grep(ctx, q, sink)
}

func (s admitted) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	if ctx.Value(heldKey{}) == s.a {
		return s.Searcher.Glob(ctx, q, fn)
	}
	release, err := s.a.enter(ctx)
	if err != nil {
		return err
	}
	defer release()
	return s.Searcher.Glob(ctx, q, fn)
}

// enter waits for a slot: at once when one is free and nobody waits,
// else in the session's queue with the call's clock stopped.
func (a *Admission) enter(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := ctx.Value(queueKey{})
	a.mu.Lock()
	if a.running < a.slots && len(a.turns) == 0 {
		a.running++
		a.mu.Unlock()
		return a.leave, nil
	}
	w := &waiter{ready: make(chan struct{})}
	if len(a.queues[key]) == 0 {
		a.turns = append(a.turns, key)
	}
	a.queues[key] = append(a.queues[key], w)
	a.mu.Unlock()

	if c := clockOf(ctx); c != nil {
		c.hold()
		defer c.resume()
	}
	t := time.NewTimer(a.wait)
	defer t.Stop()
	select {
	case <-w.ready:
		return a.leave, nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-t.C:
		err = fmt.Errorf("%w: %d searches are running and this one waited %s for a turn; retry in a moment", ErrBusy, a.slots, a.wait)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if w.granted { // granted as it gave up: pass the slot on
		a.handOn()
	} else {
		a.remove(key, w)
	}
	return nil, err
}

// leave frees a slot, handing it to the next waiter in turn.
func (a *Admission) leave() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.handOn()
}

// handOn gives the slot its holder frees to the first waiter of the
// session whose turn it is, or frees it (a.mu held).
func (a *Admission) handOn() {
	if len(a.turns) == 0 {
		if a.running--; a.running == 0 && a.idle == nil {
			a.idle = time.AfterFunc(idleRelease, a.releaseIfIdle)
		}
		return
	}
	key := a.turns[0]
	q := a.queues[key]
	w := q[0]
	a.turns = a.turns[1:]
	if len(q) > 1 {
		a.queues[key] = q[1:]
		a.turns = append(a.turns, key) // its next search waits for its next turn
	} else {
		delete(a.queues, key)
	}
	w.granted = true
	close(w.ready)
}

// remove takes a waiter that gave up out of its queue (a.mu held).
func (a *Admission) remove(key any, w *waiter) {
	q := a.queues[key]
	for i, x := range q {
		if x == w {
			q = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	if len(q) > 0 {
		a.queues[key] = q
		return
	}
	delete(a.queues, key)
	for i, k := range a.turns {
		if k == key {
			a.turns = append(a.turns[:i:i], a.turns[i+1:]...)
			break
		}
	}
}

// String describes the bound, for the start-up log.
func (a *Admission) String() string {
	return fmt.Sprintf("%d searches at once, a queue wait of at most %s", a.slots, a.wait)
}
