package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// swapper exchanges a directory inside the root with a symlink out of it
// (RENAME_EXCHANGE) in a loop until stopped, so every walk of the root
// meets the symlink where it listed a directory, and the reverse. stop
// ends the loop, waits for it and reports its error from the test's own
// goroutine; it also runs at cleanup, so a test that fails half-way never
// leaves a swapper running past its end.
func swapper(t *testing.T, dir, link string) (stop func() int64) {
	t.Helper()
	var n atomic.Int64
	var swapErr error
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
				swapErr = err
				return
			}
			n.Add(1)
		}
	}()
	var once sync.Once
	stop = func() int64 {
		once.Do(func() {
			close(done)
			wg.Wait()
			if swapErr != nil {
				t.Errorf("renameat2 %s <-> %s: %v", dir, link, swapErr)
			}
		})
		return n.Load()
	}
	t.Cleanup(func() { stop() })
	return stop
}

// TestRaceSwappedDirNeverLeaksOutside: while a directory inside the root
// is swapped with a symlink to the outside directory thousands of times a
// second, fs_grep, fs_glob, fs_list and fs_watch — both backends — never
// answer with a name or a byte from outside. Each tool is called for a
// bounded time (or number of calls), times FSMCP_REDTEAM.
func TestRaceSwappedDirNeverLeaksOutside(t *testing.T) {
	tr := newTree(t)
	sw, swLink := tr.path("sw"), tr.path("swlink")
	write(t, filepath.Join(sw, "inside.txt"), "inside "+needle+"\n")
	write(t, filepath.Join(sw, "nested", "in2.txt"), "inside two "+needle+"\n")
	far := filepath.Join(tr.base, "far")
	write(t, filepath.Join(far, "zzleak.txt"), "zzleak "+needle+"\n")
	write(t, filepath.Join(far, "nested", "zzleak2.txt"), "zzleak two "+needle+"\n")
	symlink(t, far, swLink)
	leaked := func(out string) bool { return strings.Contains(out, "zzleak") }
	perTool := time.Duration(attack(t)) * 2 * time.Second
	maxCalls := 400 * attack(t)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			// rg mode names the backend: auto lists fs_glob's matches
			// with the native walker, and rg's own glob is attacked too.
			args := []string{"--timeout", "10s", tr.root}
			if m.name == "rg" {
				args = append([]string{"--search-backend", "rg"}, args...)
			}
			cs := connectStdio(t, m, args...)
			calls := []struct {
				tool string
				args map[string]any
			}{
				{"fs_grep", map[string]any{"pattern": "zzleak|" + needle, "output_mode": "content"}},
				{"fs_grep", map[string]any{"pattern": "zzleak|" + needle, "path": sw}},
				{"fs_glob", map[string]any{"pattern": "**/*"}},
				{"fs_glob", map[string]any{"pattern": "sw/**/*"}},
				{"fs_list", map[string]any{"path": tr.root, "depth": 3}},
			}
			for _, c := range calls {
				stop := swapper(t, sw, swLink)
				deadline := time.Now().Add(perTool)
				n := 0
				for ; n < maxCalls && time.Now().Before(deadline); n++ {
					out, _ := call(t, cs, c.tool, c.args)
					if leaked(out) {
						t.Errorf("%s %v leaked outside content:\n%s", c.tool, c.args, out)
						break
					}
				}
				swaps := stop()
				t.Logf("%s %v: %d calls, %d swaps", c.tool, c.args, n, swaps)
				// Leave the directory in place for the next tool.
				if fi, err := os.Lstat(sw); err == nil && fi.Mode()&os.ModeSymlink != 0 {
					unix.Renameat2(unix.AT_FDCWD, sw, unix.AT_FDCWD, swLink, unix.RENAME_EXCHANGE)
				}
			}
			// fs_watch: watches started while the swap runs, and files
			// made outside meanwhile: no event names an outside file.
			stop := swapper(t, sw, swLink)
			deadline := time.Now().Add(perTool)
			var ids []string
			for n := 0; n < 50*attack(t) && time.Now().Before(deadline); n++ {
				out, _ := call(t, cs, "fs_watch", map[string]any{"path": tr.root})
				if leaked(out) {
					t.Errorf("fs_watch start leaked: %s", out)
				}
				if m := watcherID.FindStringSubmatch(out); m != nil {
					ids = append(ids, m[1])
				}
				write(t, filepath.Join(far, fmt.Sprintf("zzleak-new%d.txt", n)), "x")
				write(t, filepath.Join(far, "nested", fmt.Sprintf("zzleak-new%d.txt", n)), "x")
				for _, id := range ids {
					if out, _ := call(t, cs, "fs_watch", map[string]any{"action": "poll", "watcher_id": id}); leaked(out) {
						t.Errorf("fs_watch poll leaked:\n%s", out)
					}
				}
				if len(ids) >= 8 { // the per-session cap
					call(t, cs, "fs_watch", map[string]any{"action": "stop", "watcher_id": ids[0]})
					ids = ids[1:]
				}
			}
			t.Logf("fs_watch: %d swaps", stop())
			if fi, err := os.Lstat(sw); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				unix.Renameat2(unix.AT_FDCWD, sw, unix.AT_FDCWD, swLink, unix.RENAME_EXCHANGE)
			}
		})
	}
	tr.assertOutsideUntouched(t)
}

// TestRaceFIFOSwappedForFileDoesNotBlock: a file searched by name that is
// swapped with a FIFO (RENAME_EXCHANGE) is either searched or skipped,
// never waited on: every call answers in full. So does a search of the
// whole tree on the native backend; rg's own walker opens a file it
// listed as regular without O_NONBLOCK, so there the call may wait until
// --timeout and answer partial (README: residual risk), but it answers.
func TestRaceFIFOSwappedForFileDoesNotBlock(t *testing.T) {
	tr := newTree(t)
	fifo := tr.path("fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			cs := connectStdio(t, m, "--timeout", "5s", tr.root)
			stop := swapper(t, tr.path("a.txt"), fifo)
			defer stop()
			deadline := time.Now().Add(time.Duration(attack(t)) * 2 * time.Second)
			calls := 200 * attack(t)
			for n := 0; n < calls && time.Now().Before(deadline); n++ {
				for i, args := range []map[string]any{
					{"pattern": needle, "path": tr.path("a.txt")},
					{"pattern": needle, "path": tr.path("fifo")},
					{"pattern": needle, "output_mode": "count"},
				} {
					start := time.Now()
					out, _ := call(t, cs, "fs_grep", args)
					walked := i == 2 && m.name == "rg"
					if (strings.Contains(out, "partial") && !walked) || time.Since(start) > 60*time.Second {
						t.Fatalf("fs_grep %v waited on the FIFO (%v): %s", args, time.Since(start), out)
					}
					if walked && strings.Contains(out, "partial") {
						n = calls // one wait is enough to show it is bounded
					}
				}
			}
		})
	}
}
