//go:build unix

package integration

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestEditWaitsForAnotherProgramsLockOnlyAsLongAsTheCall: while another
// program holds an flock on the file, fs_edit waits until its call ends
// (--timeout), then answers with an error and changes nothing; once the
// lock is released the same edit goes through.
func TestEditWaitsForAnotherProgramsLockOnlyAsLongAsTheCall(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(root, "f.txt")
	write(t, name, "old\n")
	other, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	cs := connectStdio(t, mode{"path", os.Getenv("PATH")}, "--timeout", "1s", root)
	args := map[string]any{"file_path": name, "old_string": "old", "new_string": "new"}
	mustFail(t, cs, "fs_edit", args, "another program holds a lock on it, and the call ended before it was released")
	if got := readFile(t, name); got != "old\n" {
		t.Fatalf("the file changed while locked: %q", got)
	}
	syscall.Flock(int(other.Fd()), syscall.LOCK_UN)
	mustCall(t, cs, "fs_edit", args)
	if got := readFile(t, name); got != "new\n" {
		t.Fatalf("content %q", got)
	}
}
