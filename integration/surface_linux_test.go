package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestIndexSeesWritesThroughLinksFromOutside: once the index follows the
// tree, another process makes a hard link to a file of the root from
// outside it (or from a directory the walk leaves out, which no watch
// covers) and writes through that link: an append, and a same-size write
// with the times put back. Neither reaches a directory watch; the index's
// census bounds how long it goes unseen (--index-census, 1s here): every
// fs_grep that starts later than that after the link finds the file, as
// rg does, with rg on PATH and without. A file that already had a link
// from outside when the server started has a watch of its own, and a
// write through that link is found by the very next fs_grep.
func TestIndexSeesWritesThroughLinksFromOutside(t *testing.T) {
	attack(t)
	const bound = time.Second
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			files := map[string]string{".gitignore": "ignored/\n", ".git/HEAD": "ref: refs/heads/main\n", "ignored/keep.txt": "x\n"}
			for i := range 30 {
				files[fmt.Sprintf("d%d/t%d.txt", i%3, i)] = fmt.Sprintf("plain text %d\n", i)
			}
			root := settledTree(t, files)
			outside, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			early := filepath.Join(outside, "early")
			if err := os.Link(filepath.Join(root, "d2/t8.txt"), early); err != nil {
				t.Fatal(err)
			}
			time.Sleep(indexSettle) // the link moved its change time: a clock to pass
			srv := startIndexed(t, m, t.TempDir(), "--read-only", "--index-census", bound.String(), root)
			if !strings.Contains(srv.log.String(), "index: following changes") {
				t.Skip("SKIPPED: the index does not follow changes here (see the log); nothing is pruned")
			}
			if !strings.Contains(srv.log.String(), "file_watches=1 ") {
				t.Fatalf("the file with a link from outside has no watch of its own (see the log)")
			}
			grep := func(pattern string) string {
				return mustCall(t, srv.cs, "fs_grep", map[string]any{"pattern": pattern, "path": root})
			}
			// Warm the pruning: searches that narrow to nothing.
			for _, p := range []string{"APPENDED_OUTSIDE", "SAMESIZE_OUTSIDE", "FROM_IGNORED", "EARLY_LINK"} {
				if out := grep(p); !strings.Contains(out, "No matches") {
					t.Fatalf("before any change, fs_grep %s: %q", p, out)
				}
			}
			// after waits out the bound from the link.
			after := func(linked time.Time) { time.Sleep(time.Until(linked.Add(bound + 10*time.Millisecond))) }

			// A link made before the server started: a watch of its own.
			f, err := os.OpenFile(early, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("EARLY_LINK\n")
			f.Close()
			if out := grep("EARLY_LINK"); !strings.Contains(out, "d2/t8.txt") {
				t.Errorf("an append through a link from outside made before the start: fs_grep answered %q", out)
			}

			// An append through a link made outside after the check.
			hl := filepath.Join(outside, "hl")
			if err := os.Link(filepath.Join(root, "d1/t4.txt"), hl); err != nil {
				t.Fatal(err)
			}
			linked := time.Now()
			f, err = os.OpenFile(hl, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("APPENDED_OUTSIDE\n")
			f.Close()
			after(linked)
			if out := grep("APPENDED_OUTSIDE"); !strings.Contains(out, "d1/t4.txt") {
				t.Errorf("an append through a link from outside, %s after the link: fs_grep answered %q", bound, out)
			}

			// A same-size write through another such link, its times put back.
			target := filepath.Join(root, "d2/t5.txt")
			before, err := os.Stat(target)
			if err != nil {
				t.Fatal(err)
			}
			hl2 := filepath.Join(outside, "hl2")
			if err := os.Link(target, hl2); err != nil {
				t.Fatal(err)
			}
			linked = time.Now()
			same := "SAMESIZE_OUTSIDE\n"[:before.Size()]
			if err := os.WriteFile(hl2, []byte(same), 0o644); err != nil { // truncates and writes: same inode
				t.Fatal(err)
			}
			os.Chtimes(hl2, before.ModTime(), before.ModTime())
			after(linked)
			if out := grep("SAMESIZE"); !strings.Contains(out, "d2/t5.txt") {
				t.Errorf("a same-size write through a link from outside, times put back, %s after the link: fs_grep answered %q", bound, out)
			}

			// A link from a directory the walk leaves out (ignored), inside the root.
			hl3 := filepath.Join(root, "ignored", "hl3")
			if err := os.Link(filepath.Join(root, "d0/t6.txt"), hl3); err != nil {
				t.Fatal(err)
			}
			linked = time.Now()
			f, err = os.OpenFile(hl3, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("FROM_IGNORED\n")
			f.Close()
			after(linked)
			if out := grep("FROM_IGNORED"); !strings.Contains(out, "d0/t6.txt") {
				t.Errorf("an append through a link in an ignored directory, %s after the link: fs_grep answered %q", bound, out)
			}
		})
	}
}

// TestSetsidChildEndsWithItsSession: where the shell has no pid namespace
// of its own (--shell on here; fsmcp's own namespaces and Landlock alone
// are the same case, tested in package shell), a process that calls
// setsid, or is double-forked away from bash, leaves the process session
// fsmcp tracked commands by, and used to be re-parented to init and run
// on after its MCP session ended. Now every command runs below a keeper
// it cannot leave: such a process dies at a timeout, at the session's
// end, and when fsmcp itself is killed.
func TestSetsidChildEndsWithItsSession(t *testing.T) {
	attack(t)
	tr := newTree(t)
	url, server := startHTTP(t, modes(t)[0], "--shell", "on", tr.root)
	cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, sessionEra)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// A timeout kills what the command left, setsid'd or not.
	sleep, arg := sleeper()
	out, isErr := call(t, cs, "fs_bash", map[string]any{"command": "setsid " + sleep + " > /dev/null 2>&1 & sleep 100", "timeout": 1000})
	if !isErr || !strings.Contains(out, "timed out") {
		t.Fatalf("the command did not time out: %q", out)
	}
	waitSleeperGone(t, arg)

	// The session's end kills what its commands left running.
	sleep1, arg1 := sleeper()
	sleep2, arg2 := sleeper()
	bash(t, cs, "setsid "+sleep1+" > /dev/null 2>&1 &")
	bash(t, cs, "(setsid "+sleep2+" > /dev/null 2>&1 &) ; true") // double-forked: its parent is gone at once
	pid1, pid2 := sleeperStarted(t, arg1), sleeperStarted(t, arg2)
	if out, _ := bash(t, cs, "echo next"); out != "next" || !alive(pid1) || !alive(pid2) {
		t.Fatalf("the background processes should run on between calls: %q %v %v", out, alive(pid1), alive(pid2))
	}
	cs.Close() // DELETE: the session ends
	waitGone(t, pid1)
	waitGone(t, pid2)

	// fsmcp killed: the keeper is told by its parent-death signal.
	cs2, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, sessionEra)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	sleep3, arg3 := sleeper()
	bash(t, cs2, "setsid "+sleep3+" > /dev/null 2>&1 &")
	pid3 := sleeperStarted(t, arg3)
	server.Process.Kill()
	waitGone(t, pid3)
}
