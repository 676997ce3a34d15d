package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
