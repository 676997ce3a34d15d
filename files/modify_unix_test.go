//go:build unix

package files

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestModifyGivesUpWhenTheCallEnds: while another program holds the file's
// lock, a change whose call has ended returns at once and changes
// nothing; once the lock is released the next change goes through.
func TestModifyGivesUpWhenTheCallEnds(t *testing.T) {
	sb, root, _ := opsRoot(t)
	name := filepath.Join(root, "a.txt")
	other, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX); err != nil {
		t.Skip("no flock here:", err)
	}
	p := resolve(t, sb, name)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Append(ctx, p, []byte("late"), 0); err == nil {
		t.Fatal("a change went through while another program held the lock")
	}
	syscall.Flock(int(other.Fd()), syscall.LOCK_UN)
	if err := Append(t.Context(), p, []byte("now"), 0); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(name); string(data) != "one two one\nnow" {
		t.Fatalf("content %q", data)
	}
}

// TestWriteReplacesAFileItCannotRead: a whole write needs no old content,
// so a file of mode 0200 is still replaced, as before Write took locks.
func TestWriteReplacesAFileItCannotRead(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	sb, root, _ := opsRoot(t)
	name := filepath.Join(root, "w.txt")
	if err := os.WriteFile(name, []byte("old"), 0o200); err != nil {
		t.Fatal(err)
	}
	if err := Write(t.Context(), resolve(t, sb, name), []byte("new")); err != nil {
		t.Fatal(err)
	}
	os.Chmod(name, 0o600)
	if data, _ := os.ReadFile(name); string(data) != "new" {
		t.Fatalf("content %q", data)
	}
}
