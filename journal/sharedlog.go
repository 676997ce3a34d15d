package journal

import "os"

// sharedLog is this process's handle on the log of the segment its
// steps write, kept from step to step: a small step then costs no open
// and no close of the log. Steps write whole records with one append
// each, so several may share the handle. The handle is closed once
// another segment is written and no step uses it any more.
type sharedLog struct {
	f     *os.File
	seg   int
	users int
}

// acquireLog returns the shared handle on segment n's log, opening it
// when there is none, it is another segment's, or its file was removed
// (pruned); st.mu held.
func (st *Store) acquireLog(n int) (*sharedLog, error) {
	if l := st.log; l != nil && l.seg == n && stillLinked(l.f) {
		l.users++
		return l, nil
	}
	f, err := st.openLog(n)
	if err != nil {
		return nil, err
	}
	if old := st.log; old != nil && old.users == 0 {
		old.f.Close()
	}
	st.log = &sharedLog{f: f, seg: n, users: 1}
	return st.log, nil
}

// releaseLog is a step's end with l; st.mu held.
func (st *Store) releaseLog(l *sharedLog) {
	l.users--
	if l.users == 0 && st.log != l {
		l.f.Close()
	}
}
