//go:build unix

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// TestEditsFromTwoProcessesLoseNothing edits one file from two fsmcp
// processes at once, one by its name and one through a symlink alias;
// each fs_edit appends a distinct token and none may be lost.
func TestEditsFromTwoProcessesLoseNothing(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(root, "f.txt")
	write(t, name, "END\n")
	symlink(t, "f.txt", filepath.Join(root, "alias"))
	m := mode{"path", os.Getenv("PATH")}
	const each = 300
	var wg sync.WaitGroup
	errs := make(chan string, 2)
	for w, p := range []string{name, filepath.Join(root, "alias")} {
		cs := connectStdio(t, m, root)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				res, err := callRaw(cs, "fs_edit", map[string]any{"file_path": p, "old_string": "END", "new_string": fmt.Sprintf("t%d-%d\nEND", w, i)}, nil)
				if err != nil {
					errs <- fmt.Sprintf("edit %d of %s: %v", i, p, err)
					return
				}
				if res.IsError {
					errs <- fmt.Sprintf("edit %d of %s: %s", i, p, testenv.Text(res))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	data := readFile(t, name)
	lost := 0
	for w := range 2 {
		for i := range each {
			if !strings.Contains(data, fmt.Sprintf("t%d-%d\n", w, i)) {
				lost++
			}
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d edits lost", lost, 2*each)
	}
}
