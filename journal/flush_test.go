package journal

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCloseSyncsAtOnce: what a step wrote waits a moment for its fsync
// (flush.go); Close, at a server's shutdown or an fsmcp undo's end,
// does it then and leaves nothing pending, no timer and no open log.
func TestCloseSyncsAtOnce(t *testing.T) {
	base := t.TempDir()
	log := filepath.Join(base, "log")
	os.WriteFile(log, []byte("x\n"), 0o600)
	f, _ := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	s := New(Config{Dir: filepath.Join(base, "state")}, nil)
	st := &Store{set: s, log: &sharedLog{f: f, seg: 1}}
	s.stores["x"] = st
	s.flush.add(log, nil)
	if s.flush.timer == nil {
		t.Fatal("no sync was scheduled")
	}
	s.Close()
	if len(s.flush.pending) != 0 || s.flush.timer != nil {
		t.Fatalf("after Close: %d pending, timer %v", len(s.flush.pending), s.flush.timer)
	}
	if st.log != nil {
		t.Fatal("the store's log is still open")
	}
	if _, err := f.Write([]byte("y")); err == nil {
		t.Fatal("the log's handle still writes")
	}
}
