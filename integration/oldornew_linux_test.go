package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestReplacedKeepsOldOrNewWhenKilled (issue 47, item 4): with the
// journal on, fs_copy and fs_move of a big file, and of a tree, over an
// existing one (in one root, and between two roots, where a move
// copies), are SIGKILLed at moments through the copy while a reader
// polls the destination: it is never missing, and after the kill it
// holds the old content whole or the new whole; fsmcp undo then gives
// the old back. (The journal used to take the destination away before
// the copy started.)
func TestReplacedKeepsOldOrNewWhenKilled(t *testing.T) {
	k := attack(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	state := filepath.Join(base, "state")
	os.MkdirAll(a, 0o755)
	os.MkdirAll(b, 0o755)
	const size = 96 << 20
	oldFile, newFile := bytes.Repeat([]byte("o"), size), bytes.Repeat([]byte("n"), size)
	const files = 400
	makeTree := func(dir, tag string) {
		os.RemoveAll(dir)
		for i := range files {
			write(t, filepath.Join(dir, fmt.Sprintf("d%d/f%03d", i%8, i)), fmt.Sprintf("%s %d\n", tag, i))
		}
	}
	// whole reports which version dst holds: "old", "new", or what is wrong.
	wholeFile := func(dst string) string {
		got, err := os.ReadFile(dst)
		switch {
		case err != nil:
			return err.Error()
		case bytes.Equal(got, oldFile):
			return "old"
		case bytes.Equal(got, newFile):
			return "new"
		}
		return fmt.Sprintf("neither (%d bytes)", len(got))
	}
	wholeTree := func(dst string) string {
		tags := map[string]int{}
		for i := range files {
			got, err := os.ReadFile(filepath.Join(dst, fmt.Sprintf("d%d/f%03d", i%8, i)))
			if err != nil {
				return err.Error()
			}
			var tag string
			var n int
			fmt.Sscanf(string(got), "%s %d", &tag, &n)
			tags[tag]++
		}
		if tags["old"] == files {
			return "old"
		}
		if tags["new"] == files {
			return "new"
		}
		return fmt.Sprintf("a mix: %v", tags)
	}
	type trial struct {
		name, tool, src, dst string
		tree                 bool
	}
	trials := []trial{
		{"copy file", "fs_copy", filepath.Join(a, "new.bin"), filepath.Join(a, "dst.bin"), false},
		{"move file between roots", "fs_move", filepath.Join(a, "new.bin"), filepath.Join(b, "dst.bin"), false},
		{"copy tree", "fs_copy", filepath.Join(a, "newtree"), filepath.Join(a, "dsttree"), true},
		{"move tree between roots", "fs_move", filepath.Join(a, "newtree"), filepath.Join(b, "dsttree"), true},
	}
	// -1: killed once the call has answered (its step ended), so the
	// undo of a whole copy is tried too, whatever this machine's speed.
	delays := []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, -1}
	for _, tr := range trials {
		for round := range k {
			for _, d := range delays {
				if tr.tree {
					makeTree(tr.src, "new")
					makeTree(tr.dst, "old")
				} else {
					os.WriteFile(tr.src, newFile, 0o644)
					os.WriteFile(tr.dst, oldFile, 0o644)
				}
				s := initFsMCP(t, startRawEnv(t, append(os.Environ(), "XDG_STATE_HOME="+state), a, b))
				var missing atomic.Int64
				var stop atomic.Bool
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !stop.Load() {
						if _, err := os.Lstat(tr.dst); err != nil {
							missing.Add(1)
						}
					}
				}()
				s.send(toolCall(2, tr.tool, map[string]any{"source": tr.src, "destination": tr.dst, "overwrite": true}))
				for d < 0 {
					if m := s.next(); m["id"] != nil {
						break // the call's answer
					}
				}
				time.Sleep(d)
				s.cmd.Process.Signal(syscall.SIGKILL)
				<-s.done
				stop.Store(true)
				wg.Wait()
				got := ""
				if tr.tree {
					got = wholeTree(tr.dst)
				} else {
					got = wholeFile(tr.dst)
				}
				if missing.Load() > 0 || got != "old" && got != "new" {
					t.Errorf("%s, killed after %v (round %d): the destination was missing %d times while it ran, and holds %s", tr.name, d, round, missing.Load(), got)
				}
				// The entry cut short is undone (forced, as it must be):
				// the old content whole, whenever the kill came.
				undo := exec.Command(binary, "undo", base, "--last", "1", "--force")
				undo.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
				out, _ := undo.CombinedOutput()
				if tr.tree {
					got = wholeTree(tr.dst)
				} else {
					got = wholeFile(tr.dst)
				}
				if got != "old" {
					t.Errorf("%s, killed after %v (round %d), then undone: the destination holds %s\n%s", tr.name, d, round, got, out)
				}
			}
		}
	}
}
