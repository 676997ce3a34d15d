package native

import "sync/atomic"

// dirHandle is an open directory shared by the jobs of its
// subdirectories; it is closed when the last one has opened its own.
type dirHandle struct {
	fd   int
	refs atomic.Int32
}

func newDirHandle(fd int) *dirHandle {
	h := &dirHandle{fd: fd}
	h.refs.Store(1)
	return h
}

func (h *dirHandle) acquire() { h.refs.Add(1) }

func (h *dirHandle) release() {
	if h != nil && h.refs.Add(-1) == 0 {
		closeFD(h.fd)
	}
}
