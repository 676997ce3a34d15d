package fsmcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/toolkit"
)

func TestCatalog(t *testing.T) {
	e := testenv.New(t)
	out := filepath.Join(e.Root2, "cat.tsv")
	msg := e.OK("fs_catalog", map[string]any{"target_dir": e.Root, "output_file": out})
	if !strings.HasPrefix(msg, "Catalog created for "+e.Root+" (2 files") {
		t.Errorf("success text %q", msg)
	}
	got := e.Read("root2/cat.tsv")
	want := "Filename\tSize\tDate Modified\tDate Created\n" +
		filepath.Join(e.Root, "a.txt") + "\t6\t"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, filepath.Join(e.Root, "sub", "b.txt")+"\t4\t") {
		t.Errorf("catalog:\n%s", got)
	}
	if strings.Contains(got, "secret") || strings.Contains(got, "link") {
		t.Errorf("catalog followed or listed symlinks:\n%s", got)
	}
	// Output inside the cataloged tree: the temporary file is not a row.
	e.OK("fs_catalog", map[string]any{"target_dir": e.Root, "output_file": filepath.Join(e.Root, "self.tsv")})
	if strings.Contains(e.Read("root/self.tsv"), ".fsmcp-") {
		t.Errorf("the temporary output was cataloged")
	}
	testenv.Leftovers(t, e.Base)
}

func TestCatalogErrors(t *testing.T) {
	e := testenv.New(t)
	a := filepath.Join(e.Root, "a.txt")
	e.ProtocolError("fs_catalog", map[string]any{"target_dir": e.Root, "output_file": a}, 1001, "Output file already exists: "+a)
	missing := filepath.Join(e.Root, "missing")
	e.ProtocolError("fs_catalog", map[string]any{"target_dir": missing, "output_file": filepath.Join(e.Root, "c.tsv")}, 1002, "Target directory not found: "+missing)
	e.ProtocolError("fs_catalog", map[string]any{"target_dir": a, "output_file": filepath.Join(e.Root, "c.tsv")}, 1002, "Target directory not found: "+a)
	// An argument error is an isError result the model can read (SEP-1303).
	e.Fails("fs_catalog", map[string]any{"output_file": filepath.Join(e.Root, "c.tsv")}, "target_dir")
	// A dangling link as output counts as existing: nothing is created through it.
	e.ProtocolError("fs_catalog", map[string]any{"target_dir": e.Root, "output_file": filepath.Join(e.Root, "dangling")}, 1001, "")
	e.Fails("fs_catalog", map[string]any{"target_dir": e.Root, "output_file": filepath.Join(e.Root, "nodir", "c.tsv")}, "does not exist")
	out := filepath.Join(e.Root, "c.tsv")
	e.ProtocolError("fs_catalog", map[string]any{"target_dir": e.Root, "output_file": filepath.Join(e.Root, "filelink")}, 1001, "")
	for name, p := range e.Refusals() {
		if name == "dangling out" || name == "symlink file out" {
			continue
		}
		e.Fails("fs_catalog", map[string]any{"target_dir": p, "output_file": out}, "outside allowed directories")
		e.Fails("fs_catalog", map[string]any{"target_dir": e.Root, "output_file": p + ".tsv"}, "outside allowed directories")
	}
	e.Fails("fs_catalog", map[string]any{"target_dir": filepath.Join(e.Root, "dirlink"), "output_file": out}, "outside allowed directories")
	e.Fails("fs_catalog", map[string]any{"target_dir": e.Root, "output_file": filepath.Join(e.Root, "dirlink", "c.tsv")}, "outside allowed directories")
}

func TestCatalogProgressAndCancel(t *testing.T) {
	first := map[string]chan struct{}{"p1": make(chan struct{}, 1), "p2": make(chan struct{}, 1)}
	e := testenv.New(t, testenv.WithClient(func(o *mcp.ClientOptions) {
		o.ProgressNotificationHandler = func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			tok, _ := req.Params.ProgressToken.(string)
			select {
			case first[tok] <- struct{}{}:
			default:
			}
		}
	}))
	e.BigTree("root/big", 50, 100)

	// With a progress token, progress arrives.
	params := &mcp.CallToolParams{Name: "fs_catalog", Arguments: map[string]any{"target_dir": e.Path("root/big"), "output_file": e.Path("root2/full.tsv")}}
	params.SetProgressToken("p1")
	res, err := e.CS.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("catalog: %v %v", err, res)
	}
	select { // notifications may arrive just after the result
	case <-first["p1"]:
	case <-time.After(time.Minute): // only bounds a hang
		t.Fatalf("no progress notification")
	}

	// Cancelled halfway: the client cancels once the catalog is under way
	// (its first progress report arrived, or its temporary file appeared);
	// no output and no temporary file remain. Cancellation is advisory, so
	// the server may finish first: then the catalog is whole and the client
	// tries again, a bounded number of times, and the test fails if the
	// cancellation never lands.
	cancelled := false
	for try := 0; try < catalogCancelTries && !cancelled; try++ {
		cancelled = cancelCatalog(t, e, first["p2"], e.Path(fmt.Sprintf("root2/cancelled%d.tsv", try)))
	}
	if !cancelled {
		t.Fatalf("in %d tries the catalog always finished before the cancellation arrived", catalogCancelTries)
	}
	testenv.Leftovers(t, e.Root2)
}

// catalogCancelTries bounds the retries of a cancellation that arrived
// after the catalog finished.
const catalogCancelTries = 20

// cancelCatalog runs one catalog into out and cancels it once it is under
// way; it reports whether the cancellation stopped it (no output, no
// temporary file), and fails the test if it left a partial output.
func cancelCatalog(t *testing.T, e *testenv.Env, progress chan struct{}, out string) bool {
	t.Helper()
	select { // a report from an earlier try does not count
	case <-progress:
	default:
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := &mcp.CallToolParams{Name: "fs_catalog", Arguments: map[string]any{"target_dir": e.Path("root/big"), "output_file": out}}
	params.SetProgressToken("p2")
	done := make(chan struct{})
	defer close(done)
	go func() {
		for !hasTemp(e.Root2) {
			select {
			case <-progress:
				cancel()
				return
			case <-done:
				return
			case <-time.After(time.Millisecond): // polls for the temporary file
			}
		}
		cancel()
	}()
	_, err := e.CS.CallTool(ctx, params)
	// The temporary file existed when the client cancelled; the server
	// ends by removing it or renaming it to the output (atomically). Once
	// it is gone, the outcome is settled.
	deadline := time.Now().Add(time.Minute) // only bounds a hang
	for hasTemp(e.Root2) {
		if time.Now().After(deadline) {
			t.Fatalf("the temporary file of a cancelled catalog remains")
		}
		time.Sleep(10 * time.Millisecond)
	}
	data, rerr := os.ReadFile(out)
	if rerr != nil {
		if err == nil {
			t.Fatalf("the catalog succeeded but %s is missing", out)
		}
		return true
	}
	if n := strings.Count(string(data), "\n"); n != 5001 {
		t.Fatalf("a cancelled catalog left a partial file of %d lines", n)
	}
	os.Remove(out) // finished before the cancellation arrived
	return false
}

// A catalog stopped by --timeout leaves nothing either; the catalog
// package's TestCancelledLeavesNothing cancels one halfway.
func TestCatalogTimeout(t *testing.T) {
	e := testenv.New(t, testenv.WithLimits(func(l *toolkit.Limits) { l.Timeout = time.Nanosecond }))
	e.Fails("fs_catalog", map[string]any{"target_dir": e.Root, "output_file": filepath.Join(e.Root2, "c.tsv")}, "took longer than the time limit (--timeout); no output file was written")
}

func hasTemp(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".fsmcp-") {
			return true
		}
	}
	return false
}
