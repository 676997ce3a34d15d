package server_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// outsideMarker is in every file outside the root; no answer may hold it.
const outsideMarker = "OUTSIDE-SECRET"

// treeHash describes everything under dir: names, kinds, modes, contents.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "%s error %v\n", p, err)
			return nil
		}
		fi, _ := d.Info()
		fmt.Fprintf(h, "%s %v\n", p, fi.Mode())
		if fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			h.Write(data)
		}
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestRaceSwapNeverReachesOutside runs every path-taking file tool,
// resources/read and _meta-narrowed calls while a swapper exchanges a
// directory inside the root with a symlink out (RENAME_EXCHANGE in a
// loop): no answer may hold anything from outside, and nothing outside
// may change. Each case runs for a bounded time and count.
func TestRaceSwapNeverReachesOutside(t *testing.T) {
	e := testenv.New(t, testenv.WithResources())
	// root/d and outside/ hold the same names, so an operation that
	// followed the swapped link would hit a real outside file.
	for _, base := range []string{"root/d", "outside"} {
		marker := "inside A</end>"
		if base == "outside" {
			marker = outsideMarker + " A</end>"
		}
		e.Write(base+"/f.txt", marker)
		e.Write(base+"/m1", marker)
		e.Write(base+"/inner/g.txt", marker)
	}
	e.Write("outside/outside-only-name", outsideMarker)
	e.Symlink(e.Outside, "root/x")
	before := treeHash(t, e.Outside)

	d := filepath.Join(e.Root, "d")
	stop := make(chan struct{})
	done := make(chan struct{})
	var swaps atomic.Int64
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, filepath.Join(e.Root, "x"), unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			swaps.Add(1)
		}
	}()
	stopSwapper := func() {
		select {
		case <-stop:
			return
		default:
		}
		close(stop)
		<-done
		if fi, err := os.Lstat(d); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, filepath.Join(e.Root, "x"), unix.RENAME_EXCHANGE)
		}
	}
	defer stopSwapper()

	in := func(rel string) string { return filepath.Join(d, rel) }
	narrow := map[string]any{"allowed_dirs": []any{d}}
	type step func(i int) (string, error)
	tool := func(name string, args func(i int) map[string]any, meta map[string]any) step {
		return func(i int) (string, error) {
			res, err := e.CS.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args(i), Meta: meta})
			if err != nil {
				return "", err
			}
			return testenv.Text(res), nil
		}
	}
	fixed := func(m map[string]any) func(int) map[string]any { return func(int) map[string]any { return m } }
	cases := []struct {
		name string
		run  step
	}{
		{"fs_read", tool("fs_read", fixed(map[string]any{"file_path": in("f.txt")}), nil)},
		{"fs_write", tool("fs_write", func(i int) map[string]any { return map[string]any{"file_path": in("w.txt"), "content": fmt.Sprint(i)} }, nil)},
		{"fs_edit", tool("fs_edit", fixed(map[string]any{"file_path": in("f.txt"), "old_string": "</end>", "new_string": "x</end>"}), nil)},
		{"fs_list", tool("fs_list", fixed(map[string]any{"path": d}), nil)},
		{"fs_list inner", tool("fs_list", fixed(map[string]any{"path": in("inner")}), nil)},
		{"fs_stat", tool("fs_stat", fixed(map[string]any{"path": in("f.txt")}), nil)},
		{"fs_move", tool("fs_move", func(i int) map[string]any {
			a, b := in("m1"), in("m2")
			if i%2 == 1 {
				a, b = b, a
			}
			return map[string]any{"source": a, "destination": b}
		}, nil)},
		{"fs_copy", tool("fs_copy", fixed(map[string]any{"source": in("f.txt"), "destination": in("c.txt"), "overwrite": true}), nil)},
		{"fs_copy tree", tool("fs_copy", fixed(map[string]any{"source": in("inner"), "destination": in("inner2"), "overwrite": true}), nil)},
		{"fs_delete", tool("fs_delete", fixed(map[string]any{"path": in("c.txt")}), nil)},
		{"fs_mkdir", tool("fs_mkdir", func(i int) map[string]any { return map[string]any{"path": in(fmt.Sprintf("new%d/deep", i))} }, nil)},
		{"fs_read narrowed", tool("fs_read", fixed(map[string]any{"file_path": in("f.txt")}), narrow)},
		{"fs_write narrowed", tool("fs_write", func(i int) map[string]any { return map[string]any{"file_path": in("n.txt"), "content": fmt.Sprint(i)} }, narrow)},
		{"fs_list narrowed", tool("fs_list", fixed(map[string]any{"path": d}), narrow)},
		{"resources/read", func(int) (string, error) {
			res, err := e.CS.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri(in("f.txt"))})
			if err != nil {
				return err.Error(), nil // a refusal is fine; its text is checked too
			}
			var b strings.Builder
			for _, c := range res.Contents {
				b.WriteString(c.Text)
				b.Write(c.Blob)
			}
			return b.String(), nil
		}},
	}
	const perCase = 700 * time.Millisecond
	const maxCalls = 400
	for _, c := range cases {
		start := swaps.Load()
		calls := 0
		for deadline := time.Now().Add(perCase); calls < maxCalls && time.Now().Before(deadline); calls++ {
			out, err := c.run(calls)
			if err != nil {
				t.Fatalf("%s: protocol error: %v", c.name, err)
			}
			if strings.Contains(out, outsideMarker) || strings.Contains(out, "outside-only-name") {
				t.Fatalf("%s returned something from outside:\n%s", c.name, out)
			}
		}
		t.Logf("%s: %d calls during %d swaps", c.name, calls, swaps.Load()-start)
	}
	stopSwapper()
	if after := treeHash(t, e.Outside); after != before {
		t.Fatal("something outside the root changed")
	}
	filepath.WalkDir(e.Root, func(p string, _ fs.DirEntry, _ error) error {
		if strings.Contains(filepath.Base(p), ".fsmcp-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
	if _, err := e.CS.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("the server stopped answering: %v", err)
	}
}
