//go:build unix

package sandbox

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOpenRefusesSpecialFiles(t *testing.T) {
	f := newFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.root, "fifo"), 0o644); err != nil {
		t.Skip("SKIPPED: cannot make a FIFO here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.sb.mustResolve(t, "fifo").ReadFile(0)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file (named pipe)") {
			t.Fatalf("ReadFile(fifo) = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ReadFile(fifo) blocked")
	}
}
