package confine

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// run runs bin with args through Start and returns its output.
func run(t *testing.T, p Policy, bin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := Start(cmd, p); err != nil {
		return "", err
	}
	err := cmd.Wait()
	return out.String(), err
}

// TestConfinedProgramReadsOnlyItsPolicy: a program run through Start
// reads the directories and files of its policy, and nothing else — not
// a file beside them, not one reached through a symlink inside them.
func TestConfinedProgramReadsOnlyItsPolicy(t *testing.T) {
	if !Confined() {
		t.Skip("SKIPPED: no Landlock here")
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	cat, _ = filepath.Abs(cat)
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(root, "in.txt"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644)
	os.WriteFile(filepath.Join(outside, "allowed.txt"), []byte("allowed"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link"))
	p := Policy{Dirs: []string{root}, Files: []string{filepath.Join(outside, "allowed.txt")}}
	for path, want := range map[string]string{filepath.Join(root, "in.txt"): "inside", filepath.Join(outside, "allowed.txt"): "allowed"} {
		if got, err := run(t, p, cat, path); err != nil || got != want {
			t.Errorf("cat %s = %q, %v; want %q", path, got, err, want)
		}
	}
	for _, path := range []string{filepath.Join(outside, "secret.txt"), filepath.Join(root, "link"), "/etc/hostname"} {
		if got, err := run(t, p, cat, path); err == nil || strings.Contains(got, "secret") {
			t.Errorf("cat %s was allowed: %q", path, got)
		}
	}
}

// TestStartLeavesTheServerFree: the restriction stays with the programs
// started. After many confined starts, from many goroutines at once,
// every thread of this process can still read outside the policy, and
// each thread that was restricted (no_new_privs set) goes away.
func TestStartLeavesTheServerFree(t *testing.T) {
	if !Confined() {
		t.Skip("SKIPPED: no Landlock here")
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true")
	}
	truePath, _ = filepath.Abs(truePath)
	p := Policy{Dirs: []string{t.TempDir()}}
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := run(t, p, truePath); err != nil {
				t.Errorf("confined true: %v", err)
			}
		}()
	}
	wg.Wait()
	// Every thread, new ones included, reads outside the policy.
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // spread over threads; this one ends with the goroutine
			if _, err := os.ReadDir("/"); err != nil {
				t.Errorf("reading / after confined starts: %v", err)
			}
		}()
	}
	wg.Wait()
	// Restricted threads exit; wait for each (the bound is a failure
	// bound only).
	deadline := time.Now().Add(time.Minute)
	for {
		left := restrictedThreads(t)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("threads with no_new_privs still running: %v", left)
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.ReadDir("/"); err != nil {
		t.Errorf("reading /: %v", err)
	}
}

// restrictedThreads lists this process's threads with no_new_privs set,
// but for the main thread: a goroutine that ends locked to it does not
// end it but parks it for good (the Go runtime cannot end the main
// thread), so it runs nothing more either.
func restrictedThreads(t *testing.T) []string {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []string
	main := strconv.Itoa(os.Getpid())
	for _, task := range tasks {
		if task.Name() == main {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "status"))
		if err != nil {
			continue // ended meanwhile
		}
		if strings.Contains(string(status), "\nNoNewPrivs:\t1") {
			out = append(out, task.Name())
		}
	}
	return out
}
