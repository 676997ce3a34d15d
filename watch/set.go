package watch

import (
	"errors"
	"strconv"
	"sync"
)

// ErrSetFull is Set.Add's refusal when the set already holds its most.
var ErrSetFull = errors.New("the session holds the most watchers it may")

// Set is one session's watchers by id, bounded because each watcher costs
// inotify watches, a kernel-wide resource. Profiles keep one per session
// and differ only in how ids are chosen and how a refusal reads.
type Set struct {
	mu   sync.Mutex
	max  int
	next int
	byID map[string]*Watcher
}

// NewSet returns an empty set holding at most max watchers.
func NewSet(max int) *Set {
	return &Set{max: max, byID: map[string]*Watcher{}}
}

// Max is the most watchers the set holds.
func (s *Set) Max() int { return s.max }

// Full reports whether Add would refuse a new id now; callers ask before
// the costly watch.New, and Add checks again.
func (s *Set) Full() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byID) >= s.max
}

// Add keeps w under id and returns the id. An empty id gets the next
// "w1", "w2", ...; a taken id is replaced and its old watcher closed. When
// the set is full Add returns ErrSetFull and w stays the caller's to close.
func (s *Set) Add(id string, w *Watcher) (string, error) {
	s.mu.Lock()
	var old *Watcher
	if id != "" {
		old = s.byID[id]
		delete(s.byID, id)
	}
	if len(s.byID) >= s.max {
		s.mu.Unlock()
		closeWatcher(old)
		return "", ErrSetFull
	}
	if id == "" {
		for id == "" || s.byID[id] != nil {
			s.next++
			id = "w" + strconv.Itoa(s.next)
		}
	}
	s.byID[id] = w
	s.mu.Unlock()
	closeWatcher(old)
	return id, nil
}

// Get returns the watcher under id.
func (s *Set) Get(id string) (*Watcher, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.byID[id]
	return w, ok
}

// Stop closes and forgets the watcher under id; false if there is none.
func (s *Set) Stop(id string) (bool, error) {
	s.mu.Lock()
	w, ok := s.byID[id]
	delete(s.byID, id)
	s.mu.Unlock()
	if !ok {
		return false, nil
	}
	return true, w.Close()
}

// Close stops every watcher in the set (the session ended).
func (s *Set) Close() error {
	s.mu.Lock()
	ws := s.byID
	s.byID = map[string]*Watcher{}
	s.mu.Unlock()
	for _, w := range ws {
		w.Close()
	}
	return nil
}

func closeWatcher(w *Watcher) {
	if w != nil {
		w.Close()
	}
}
