package shell

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestKeeperHoldsWhatLeavesTheSession: without a pid namespace of the
// session's (an unconfined shell, or the namespaces fsmcp makes itself
// where bwrap is missing), a process that calls setsid, or is double-
// forked away from bash, leaves the process session commands are tracked
// by; the keeper below which every command runs still holds it: it runs
// on between calls and dies at a timeout and at Close.
func TestKeeperHoldsWhatLeavesTheSession(t *testing.T) {
	for _, c := range []struct {
		name  string
		mode  Mode
		setup func(t *testing.T)
	}{
		{"on", ModeOn, func(*testing.T) {}},
		{"userns", ModeSandboxed, forceGoNamespaces},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.setup(t)
			s, root := newTestSession(t, c.mode, nil)
			if !s.useKeeper() {
				t.Fatal("the session runs no keeper")
			}
			run(t, s, "setsid sleep 100 > /dev/null 2>&1 & echo $! > bg.pid")
			run(t, s, "(setsid sleep 100 > /dev/null 2>&1 & echo $! > bg2.pid) ; true")
			pid, pid2 := readPid(t, filepath.Join(root, "bg.pid")), readPid(t, filepath.Join(root, "bg2.pid"))
			res, err := s.Run(context.Background(), "setsid sleep 100 > /dev/null 2>&1 & echo $! > bg3.pid; sleep 100", 500*time.Millisecond)
			if err != nil || !res.TimedOut {
				t.Fatalf("the command did not time out: %+v %v", res, err)
			}
			waitGone(t, readPid(t, filepath.Join(root, "bg3.pid")))
			if res := run(t, s, "echo next"); res.Output != "next\n" || res.ExitCode != 0 || !alive(pid) || !alive(pid2) {
				t.Fatalf("background processes should run on between calls: %q %d %v %v", res.Output, res.ExitCode, alive(pid), alive(pid2))
			}
			if res := run(t, s, "exit 7"); res.ExitCode != 7 {
				t.Errorf("exit 7 through the keeper: status %d", res.ExitCode)
			}
			if res := run(t, s, "kill -9 $$"); res.ExitCode != 137 {
				t.Errorf("bash killed by a signal through the keeper: status %d", res.ExitCode)
			}
			s.Close()
			waitGone(t, pid)
			waitGone(t, pid2)
		})
	}
}
