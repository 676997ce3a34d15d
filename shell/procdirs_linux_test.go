package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestProcDirsFollowTheirProcess: a process's working directory and
// descriptors read through its kept /proc handle are its own, a process
// that ended answers nothing (never what it answered while it ran), and
// close leaves no descriptor open.
func TestProcDirsFollowTheirProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sleep", "60")
	cmd.Dir = dir
	f, err := os.Create(filepath.Join(dir, "held"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.ExtraFiles = []*os.File{f} // the child's descriptor 3
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	pid := cmd.Process.Pid
	procs := procDirs{}
	for range 3 { // the first through a new handle, the rest through the kept one
		cwd, err := procs.readlink(pid, "cwd")
		if err != nil || cwd != dir {
			t.Fatalf("cwd of %d = %q, %v; want %q", pid, cwd, err, dir)
		}
		held, err := procs.fdPath(pid, 3)
		if err != nil || held != f.Name() {
			t.Fatalf("descriptor 3 of %d = %q, %v; want %q", pid, held, err, f.Name())
		}
	}
	if _, err := procs.fdPath(pid, 99); err == nil {
		t.Fatal("a descriptor the process does not have was read")
	}
	cmd.Process.Kill()
	cmd.Wait() // reaped: the pid is free for another process
	if cwd, err := procs.readlink(pid, "cwd"); err == nil {
		t.Fatalf("the cwd of a process that ended read as %q", cwd)
	}
	procs.close()
	if len(procs) != 0 {
		t.Fatalf("%d handles kept after close", len(procs))
	}
	if after := openFDs(t); after > before {
		t.Fatalf("%d descriptors open before, %d after close", before, after)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}
