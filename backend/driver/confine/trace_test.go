package confine

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// script writes an executable shell script.
func script(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func realPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no %s", name)
	}
	p, err = filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTraceSeesTheHandOver: a script that hands over to a binary is seen
// executing its interpreter, then that binary, whose output it gives.
func TestTraceSeesTheHandOver(t *testing.T) {
	echo := realPath(t, "echo")
	sh := realPath(t, "sh")
	dir := t.TempDir()
	script(t, filepath.Join(dir, "shim"), "exec "+echo+" handed \"$@\"")
	got, err := Trace(Run{Path: filepath.Join(dir, "shim"), Args: []string{"shim", "over"}, Dir: "/", Timeout: time.Minute}, Policy{All: true})
	if errors.Is(err, ErrNoTrace) {
		t.Skip("SKIPPED: no ptrace here")
	}
	if err != nil || got.Exit != 0 || string(got.Stdout) != "handed over\n" || !slices.Equal(got.Images, []string{sh, echo}) {
		t.Fatalf("Trace = %+v, %v; want %s then %s, printing handed over", got, err, sh, echo)
	}
}

// TestTraceKeepsOutOfTheExcepted: a run may execute and read nothing
// beneath AllBut's paths, and write nothing anywhere, while it reads and
// runs what lies elsewhere.
func TestTraceKeepsOutOfTheExcepted(t *testing.T) {
	if !Confined() {
		t.Skip("SKIPPED: no Landlock here")
	}
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(root, "secret"), []byte("secret\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "public"), []byte("public\n"), 0o644)
	script(t, filepath.Join(root, "planted"), "echo planted ran")
	canary := filepath.Join(outside, "canary")
	script(t, filepath.Join(outside, "shim"), strings.Join([]string{
		"cat " + filepath.Join(outside, "public"),
		"cat " + filepath.Join(root, "secret"),
		filepath.Join(root, "planted"),
		"echo x > " + canary,
		"echo done",
	}, "\n"))
	got, err := Trace(Run{Path: filepath.Join(outside, "shim"), Args: []string{"shim"}, Dir: "/", Timeout: time.Minute}, Policy{All: true, AllBut: []string{root}})
	if errors.Is(err, ErrNoTrace) {
		t.Skip("SKIPPED: no ptrace here")
	}
	if err != nil {
		t.Fatal(err)
	}
	out := string(got.Stdout)
	if !strings.Contains(out, "public") || !strings.Contains(out, "done") {
		t.Fatalf("the run did not read and run what lies outside: %q (stderr %q)", out, got.Stderr)
	}
	if strings.Contains(out, "secret") || strings.Contains(out, "planted ran") {
		t.Errorf("the run read or ran what lies in the excepted directory: %q", out)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Errorf("the run wrote %s", canary)
	}
}

// TestTraceVetStopsAProgramBeforeItRuns: a program Vet refuses never runs
// an instruction (it would print), and every process of the run ends.
func TestTraceVetStopsAProgramBeforeItRuns(t *testing.T) {
	echo := realPath(t, "echo")
	dir := t.TempDir()
	script(t, filepath.Join(dir, "shim"), "echo shim ran\nexec "+echo+" echo ran")
	got, err := Trace(Run{Path: filepath.Join(dir, "shim"), Args: []string{"shim"}, Dir: "/", Timeout: time.Minute,
		Vet: func(image string) bool { return image != echo }}, Policy{All: true})
	if errors.Is(err, ErrNoTrace) {
		t.Skip("SKIPPED: no ptrace here")
	}
	if !errors.Is(err, ErrVetoed) || string(got.Stdout) != "shim ran\n" || got.Exit != -1 {
		t.Fatalf("Trace = %+v, %v; want the shim's line only, and ErrVetoed", got, err)
	}
}

// TestTraceEndsWhatLeavesTheGroup: a shim that starts a helper in a
// session of its own (setsid, as a version manager's background daemon
// does) is followed there too. One whose helper exits at once ends with
// it; one whose helper runs on is ended at the timeout, helper and all,
// and Trace says so. Waiting on the first process group alone left the
// helper stopped at its exec for good, holding the output open, and
// Trace never returned.
func TestTraceEndsWhatLeavesTheGroup(t *testing.T) {
	bash := realPath(t, "bash")
	realPath(t, "setsid")
	dir := t.TempDir()
	name := "fsmcp-trace-helper-" + filepath.Base(dir)
	for _, c := range []struct {
		name, body string
		timeout    bool
	}{
		{"helper exits at once", "(setsid sleep 300 X &); sleep 300 X", false},
		{"helper runs on", "(setsid " + bash + " -c 'exec -a " + name + " sleep 300' &); echo ripgrep 13.0.0", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			shim := filepath.Join(dir, "shim")
			if err := os.WriteFile(shim, []byte("#!"+bash+"\n"+c.body+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := Trace(Run{Path: shim, Args: []string{"rg", "--version"}, Dir: "/", Timeout: 2 * time.Second}, Policy{All: true})
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute): // only bounds a hang
				t.Fatal("Trace did not return a minute after its run's 2 s timeout")
			}
			if errors.Is(err, ErrNoTrace) {
				t.Skip("SKIPPED: no ptrace here")
			}
			if c.timeout != errors.Is(err, ErrTimedOut) {
				t.Fatalf("Trace: %v; want ErrTimedOut %v", err, c.timeout)
			}
			if pids := procsNamed(name); len(pids) > 0 {
				t.Fatalf("the helper %s is still running (pids %v)", name, pids)
			}
		})
	}
}

// procsNamed lists the processes whose command line starts with name.
func procsNamed(name string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.HasPrefix(string(b), name) {
			out = append(out, e.Name())
		}
	}
	return out
}
