package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// TestTwoServersCommandsUndone: two fsmcp processes serve one root, and
// their fs_bash commands run at the same time over the same files (one
// appends to a file the other rewrites with sed -i, one removes a tree
// the other writes into). After both stop, one "fsmcp undo DIR --last N"
// of every entry history lists gives the tree back as it was, whatever
// the interleaving; an edit by someone else after them is refused and
// kept (with the namespace shell and the unconfined one).
func TestTwoServersCommandsUndone(t *testing.T) {
	for _, shellMode := range []string{"sandboxed", "on"} {
		for round := range 2 {
			t.Run(fmt.Sprint(shellMode, "/", round), func(t *testing.T) {
				root := undoFixture(t)
				before := treeState(t, root)
				m := mode{"path", os.Getenv("PATH")}
				a := connectStdioEnv(t, m, nil, "--shell", shellMode, root)
				b := connectStdioEnv(t, m, nil, "--shell", shellMode, root)
				cmds := [2][]string{
					{"for i in $(seq 1 100); do echo a$i >> f.txt; echo a$i > tree/a$((i%7)); done", "sed -i s/a/A/ f.txt tree/a.txt; chmod 700 tree/deep", "rm -rf tree/deep; mv suid.sh s2"},
					{"for i in $(seq 1 100); do sed -i s/1/X/ f.txt; echo b$i >> tree/deep/b.bin 2>/dev/null; done", "cp -a tree t2; echo b >> tree/a.txt", "mv s2 s3 2>/dev/null; echo b > suid.sh; rm -rf t2"},
				}
				var wg sync.WaitGroup
				errs := make([]string, 2)
				for k, cs := range []*mcp.ClientSession{a, b} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for _, c := range cmds[k] {
							res, err := callRaw(cs, "fs_bash", args("command", "cd "+root+" && { "+c+"; } 2>/dev/null; true"), nil)
							if err != nil || res.IsError {
								errs[k] = fmt.Sprint(err, testenv.Text(res))
								return
							}
						}
					}()
				}
				wg.Wait()
				if e := strings.Join(errs, ""); e != "" {
					t.Fatal(e)
				}
				a.Close()
				b.Close()
				hist, err := exec.Command(binary, "history", root).CombinedOutput()
				if err != nil {
					t.Fatalf("fsmcp history: %v\n%s", err, hist)
				}
				n := len(strings.Split(strings.TrimSpace(string(hist)), "\n"))
				if round == 1 {
					// Someone else's edit after both commands ended is not
					// theirs: the undo refuses the file and the edit stays.
					f, err := os.OpenFile(filepath.Join(root, "f.txt"), os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					f.WriteString("outside\n")
					f.Close()
					out, err := exec.Command(binary, "undo", root, "--last", fmt.Sprint(n)).CombinedOutput()
					if err == nil || !strings.Contains(string(out), "f.txt changed since") {
						t.Fatalf("fsmcp undo --last %d after an outside edit: %v\n%s", n, err, out)
					}
					if b, _ := os.ReadFile(filepath.Join(root, "f.txt")); !strings.HasSuffix(string(b), "outside\n") {
						t.Fatalf("the outside edit was lost: %q\nundo said:\n%s", b, out)
					}
					return
				}
				out, err := exec.Command(binary, "undo", root, "--last", fmt.Sprint(n)).CombinedOutput()
				if err != nil {
					t.Fatalf("fsmcp undo --last %d: %v\n%s\nhistory:\n%s", n, err, out, hist)
				}
				if d := testenv.StateDiff(before, treeState(t, root)); d != "" {
					t.Fatalf("after fsmcp undo --last %d:\n%s\nundo said:\n%s\nhistory:\n%s", n, d, out, hist)
				}
			})
		}
	}
}

// TestBashMovesBetweenRootsUndone: one fs_bash command moves trees and
// files between two roots, writes in both and removes in both; it is
// one entry that both roots' histories show, and one "fsmcp undo" from
// either root gives both back as they were.
func TestBashMovesBetweenRootsUndone(t *testing.T) {
	for _, shellMode := range []string{"sandboxed", "on"} {
		for _, from := range []int{0, 1} {
			t.Run(fmt.Sprint(shellMode, "/undo from root ", from), func(t *testing.T) {
				roots := [2]string{undoFixture(t), undoFixture(t)}
				before := [2]map[string]string{treeState(t, roots[0]), treeState(t, roots[1])}
				cs := connectStdioEnv(t, mode{"path", os.Getenv("PATH")}, nil, "--shell", shellMode, roots[0], roots[1])
				a, b := roots[0], roots[1]
				cmd := fmt.Sprintf("cd %s && mv tree %s/moved && mv %s/f.txt f2 && cp -a %s/tree t3 && echo x >> %s/moved/a.txt && rm -rf %s/tree/deep suid.sh && mv %s/suid.sh s && chmod 600 s && ln -s %s/moved/a.txt %s/l",
					a, b, b, b, b, b, b, b, a)
				res, err := callRaw(cs, "fs_bash", args("command", cmd), nil)
				if err != nil || res.IsError {
					t.Fatal(err, testenv.Text(res))
				}
				cs.Close()
				for _, r := range roots {
					h, err := exec.Command(binary, "history", r).CombinedOutput()
					if err != nil || len(strings.Split(strings.TrimSpace(string(h)), "\n")) != 1 {
						t.Fatalf("fsmcp history %s: %v\n%s", r, err, h)
					}
				}
				out, err := exec.Command(binary, "undo", roots[from], "--last", "1").CombinedOutput()
				if err != nil {
					t.Fatalf("fsmcp undo %s --last 1: %v\n%s", roots[from], err, out)
				}
				for i, r := range roots {
					if d := testenv.StateDiff(before[i], treeState(t, r)); d != "" {
						t.Fatalf("root %d after fsmcp undo:\n%s\nundo said:\n%s", i, d, out)
					}
				}
			})
		}
	}
}

// TestToolMovesBetweenRootsKeepEverything: fs_move between two roots
// copies, as mv between file systems does, and the copies keep the
// extended attributes and (as root) owners of what moved; one "fsmcp
// undo" gives both roots back as they were.
func TestToolMovesBetweenRootsKeepEverything(t *testing.T) {
	roots := [2]string{undoFixture(t), undoFixture(t)}
	if os.Getuid() == 0 {
		for _, p := range []string{roots[0] + "/tree", roots[0] + "/tree/a.txt", roots[0] + "/tree/link", roots[1] + "/f.txt"} {
			if err := os.Lchown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := [2]map[string]string{treeState(t, roots[0]), treeState(t, roots[1])}
	cs := connectStdioEnv(t, mode{"path", os.Getenv("PATH")}, nil, roots[0], roots[1])
	for _, c := range [][2]any{
		{"fs_move", args("source", roots[0]+"/tree", "destination", roots[1]+"/moved")},
		{"fs_move", args("source", roots[1]+"/f.txt", "destination", roots[0]+"/f.txt", "overwrite", true)},
	} {
		if res, err := callRaw(cs, c[0].(string), c[1].(map[string]any), nil); err != nil || res.IsError {
			t.Fatal(err, testenv.Text(res))
		}
	}
	cs.Close()
	moved := treeState(t, roots[1])
	for rel, want := range map[string]string{"tree": "moved", "tree/a.txt": "moved/a.txt", "tree/link": "moved/link"} {
		if got := moved[want]; !strings.EqualFold(strings.Fields(got)[1], strings.Fields(before[0][rel])[1]) || strings.Contains(before[0][rel], "xattr") != strings.Contains(got, "xattr") {
			t.Errorf("%s moved to %s: %q, was %q", rel, want, got, before[0][rel])
		}
	}
	out, err := exec.Command(binary, "undo", roots[0], "--last", "2").CombinedOutput()
	if err != nil {
		t.Fatalf("fsmcp undo --last 2: %v\n%s", err, out)
	}
	for i, r := range roots {
		if d := testenv.StateDiff(before[i], treeState(t, r)); d != "" {
			t.Errorf("root %d after fsmcp undo:\n%s\nundo said:\n%s", i, d, out)
		}
	}
}

// TestHardLinksFromAnEarlierServerKept: a hard link one fsmcp's command
// made, and writes and a chmod through either name by the next fsmcp's
// commands: the history tells the second the names the first saw made,
// it keeps both before each change, and one undo of the three gives the
// tree back.
func TestHardLinksFromAnEarlierServerKept(t *testing.T) {
	for _, shellMode := range []string{"sandboxed", "on"} {
		t.Run(shellMode, func(t *testing.T) {
			root := undoFixture(t)
			before := treeState(t, root)
			m := mode{"path", os.Getenv("PATH")}
			for _, c := range []string{"ln f.txt b && ln suid.sh tree/s", "echo x >> b && chmod 600 tree/s", "echo y >> f.txt && echo z >> suid.sh"} {
				cs := connectStdioEnv(t, m, nil, "--shell", shellMode, root)
				res, err := callRaw(cs, "fs_bash", args("command", "cd "+root+" && "+c), nil)
				if err != nil || res.IsError || strings.Contains(testenv.Text(res), "not known to the journal") {
					t.Fatalf("%s: %v %s", c, err, testenv.Text(res))
				}
				cs.Close()
			}
			out, err := exec.Command(binary, "undo", root, "--last", "3").CombinedOutput()
			if err != nil {
				t.Fatalf("fsmcp undo --last 3: %v\n%s", err, out)
			}
			if d := testenv.StateDiff(before, treeState(t, root)); d != "" {
				t.Fatalf("after fsmcp undo --last 3:\n%s\nundo said:\n%s", d, out)
			}
		})
	}
}

// TestUndoWaitsForABackgroundWriter: a command leaves a loop appending
// to a file it also changed before it returned. An undo while the loop
// still writes skips the loop's entry (in progress) and the command's
// too, since the loop still changes the file the command's undo would
// put back (it was put back under the writer, which then went on in the
// restored file); once the loop is done, one undo of all gives the tree
// back.
func TestUndoWaitsForABackgroundWriter(t *testing.T) {
	for _, shellMode := range []string{"sandboxed", "on"} {
		t.Run(shellMode, func(t *testing.T) {
			root := undoFixture(t)
			before := treeState(t, root)
			cs := connectStdioEnv(t, mode{"path", os.Getenv("PATH")}, nil, "--shell", shellMode, root)
			lines := func() int {
				b, _ := os.ReadFile(filepath.Join(root, "suid.sh"))
				return strings.Count(string(b), "\n")
			}
			// The loop appends every 0.1 s until sig/stop, then says so in
			// sig/done (sig is not compared); the call returns after its
			// first write.
			loop := "(while [ ! -e sig/stop ]; do echo w >> suid.sh; sleep 0.1; done; : > sig/done) > /dev/null 2>&1 &"
			res, err := callRaw(cs, "fs_bash", args("command", "cd "+root+" && echo a >> f.txt && "+loop+" while [ $(wc -l < suid.sh) -lt 3 ]; do sleep 0.05; done"), nil)
			if err != nil || res.IsError {
				t.Fatal(err, testenv.Text(res))
			}
			for deadline := time.Now().Add(time.Minute); lines() < 8 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			}
			out, _ := exec.Command(binary, "undo", root, "--last", "2").CombinedOutput()
			if strings.Contains(string(out), "still in progress") {
				if !strings.Contains(string(out), "suid.sh was changed after it by") || strings.Contains(string(out), "undone 1") {
					t.Fatalf("undo while the loop writes:\n%s", out)
				}
			} else {
				// The loop stalled past the background step's quiet spell
				// (a loaded machine): its entry had ended; nothing to hold.
				t.Logf("the loop's entry had ended: %s", out)
			}
			os.WriteFile(filepath.Join(root, "sig", "stop"), nil, 0o644)
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if _, err := os.Stat(filepath.Join(root, "sig", "done")); err == nil {
					break
				}
			}
			cs.Close()
			h, _ := exec.Command(binary, "history", root).CombinedOutput()
			n := len(strings.Split(strings.TrimSpace(string(h)), "\n"))
			out, err = exec.Command(binary, "undo", root, "--last", fmt.Sprint(n)).CombinedOutput()
			if err != nil {
				t.Fatalf("fsmcp undo --last %d: %v\n%s\nhistory:\n%s", n, err, out, h)
			}
			if d := testenv.StateDiff(before, treeState(t, root)); d != "" {
				t.Fatalf("after the undo:\n%s\nundo said:\n%s\nhistory:\n%s", d, out, h)
			}
		})
	}
}
