package journal

import "github.com/fsmcp/fsmcp/sandbox"

// SetBetweenLstatAndRead sets the hook run between a file's lstat and
// the read of its content, until the test ends.
func SetBetweenLstatAndRead(cleanup func(func()), fn func(*sandbox.Path)) {
	old := betweenLstatAndRead
	betweenLstatAndRead = fn
	cleanup(func() { betweenLstatAndRead = old })
}

// Die lets go of s's pins as the end of a killed process does, without
// ending its steps: they read as cut short (for tests).
func (s *Set) Die() {
	s.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.stores {
		st.mu.Lock()
		if st.owner != nil {
			st.owner.Close()
			st.owner = nil
		}
		st.mu.Unlock()
	}
}
