//go:build unix

package files

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/sandbox"
)

// newSandbox makes a root in a temporary directory.
func newSandbox(t *testing.T) (*sandbox.Sandbox, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	return sb, root
}

// TestCopyFIFOSwappedInDoesNotHang plays a regular file replaced by a FIFO
// after the copy checked it: the copy must fail at once, not wait for a
// writer, and leave nothing.
func TestCopyFIFOSwappedInDoesNotHang(t *testing.T) {
	sb, root := newSandbox(t)
	src := filepath.Join(root, "f")
	if err := os.WriteFile(src, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(src)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(src)
	if err := syscall.Mkfifo(src, 0o644); err != nil {
		t.Skip("SKIPPED: no FIFO here:", err)
	}
	done := make(chan error, 1)
	go func() {
		dst := resolve(t, sb, filepath.Join(root, "g"))
		done <- copyTree(context.Background(), resolve(t, sb, src), fi, dst, dst, false)
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no longer a regular file") {
			t.Fatalf("copy of a FIFO = %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("copying a FIFO blocked")
	}
}
