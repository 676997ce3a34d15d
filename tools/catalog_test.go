package tools_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/tools"
)

func TestCatalog(t *testing.T) {
	e := newEnv(t)
	out := filepath.Join(e.root2, "cat.tsv")
	msg := e.ok("fs_catalog", map[string]any{"target_dir": e.root, "output_file": out})
	if !strings.HasPrefix(msg, "Catalog created for "+e.root+" (2 files") {
		t.Errorf("success text %q", msg)
	}
	got := e.read("root2/cat.tsv")
	want := "Filename\tSize\tDate Modified\tDate Created\n" +
		filepath.Join(e.root, "a.txt") + "\t6\t"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, filepath.Join(e.root, "sub", "b.txt")+"\t4\t") {
		t.Errorf("catalog:\n%s", got)
	}
	if strings.Contains(got, "secret") || strings.Contains(got, "link") {
		t.Errorf("catalog followed or listed symlinks:\n%s", got)
	}
	// Output inside the cataloged tree: the temporary file is not a row.
	e.ok("fs_catalog", map[string]any{"target_dir": e.root, "output_file": filepath.Join(e.root, "self.tsv")})
	if strings.Contains(e.read("root/self.tsv"), ".fsmcp-") {
		t.Errorf("the temporary output was cataloged")
	}
	leftovers(t, e.base)
}

// protocolError runs a tool that must fail with a JSON-RPC error of code,
// changing nothing.
func (e *env) protocolError(name string, args map[string]any, code int64, msg string) {
	e.t.Helper()
	before := e.snapshot()
	_, err := e.call(name, args)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != code || (msg != "" && je.Message != msg) {
		e.t.Fatalf("%s %v: err %v, want JSON-RPC error %d %q", name, args, err, code, msg)
	}
	if e.snapshot() != before {
		e.t.Fatalf("%s %v failed but changed the tree", name, args)
	}
}

func TestCatalogErrors(t *testing.T) {
	e := newEnv(t)
	a := filepath.Join(e.root, "a.txt")
	e.protocolError("fs_catalog", map[string]any{"target_dir": e.root, "output_file": a}, 1001, "Output file already exists: "+a)
	missing := filepath.Join(e.root, "missing")
	e.protocolError("fs_catalog", map[string]any{"target_dir": missing, "output_file": filepath.Join(e.root, "c.tsv")}, 1002, "Target directory not found: "+missing)
	e.protocolError("fs_catalog", map[string]any{"target_dir": a, "output_file": filepath.Join(e.root, "c.tsv")}, 1002, "Target directory not found: "+a)
	e.protocolError("fs_catalog", map[string]any{"output_file": filepath.Join(e.root, "c.tsv")}, -32602, "")
	// A dangling link as output counts as existing: nothing is created through it.
	e.protocolError("fs_catalog", map[string]any{"target_dir": e.root, "output_file": filepath.Join(e.root, "dangling")}, 1001, "")
	e.fails("fs_catalog", map[string]any{"target_dir": e.root, "output_file": filepath.Join(e.root, "nodir", "c.tsv")}, "does not exist")
	out := filepath.Join(e.root, "c.tsv")
	e.protocolError("fs_catalog", map[string]any{"target_dir": e.root, "output_file": filepath.Join(e.root, "filelink")}, 1001, "")
	for name, p := range e.refusals() {
		if name == "dangling out" || name == "symlink file out" {
			continue
		}
		e.fails("fs_catalog", map[string]any{"target_dir": p, "output_file": out}, "outside allowed directories")
		e.fails("fs_catalog", map[string]any{"target_dir": e.root, "output_file": p + ".tsv"}, "outside allowed directories")
	}
	e.fails("fs_catalog", map[string]any{"target_dir": filepath.Join(e.root, "dirlink"), "output_file": out}, "outside allowed directories")
	e.fails("fs_catalog", map[string]any{"target_dir": e.root, "output_file": filepath.Join(e.root, "dirlink", "c.tsv")}, "outside allowed directories")
}

// bigTree writes dirs×perDir files under rel.
func (e *env) bigTree(rel string, dirs, perDir int) {
	e.t.Helper()
	for d := range dirs {
		dir := e.path(filepath.Join(rel, fmt.Sprintf("d%04d", d)))
		os.MkdirAll(dir, 0o755)
		for f := range perDir {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", f)), []byte("x"), 0o644); err != nil {
				e.t.Fatal(err)
			}
		}
	}
}

func TestCatalogProgressAndCancel(t *testing.T) {
	var progress atomic.Int32
	first := make(chan struct{}, 1)
	e := newEnv(t, withClient(func(o *mcp.ClientOptions) {
		o.ProgressNotificationHandler = func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress.Add(1)
			select {
			case first <- struct{}{}:
			default:
			}
		}
	}))
	e.bigTree("root/big", 50, 100)

	// With a progress token, progress arrives.
	params := &mcp.CallToolParams{Name: "fs_catalog", Arguments: map[string]any{"target_dir": e.path("root/big"), "output_file": e.path("root2/full.tsv")}}
	params.SetProgressToken("p1")
	res, err := e.cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("catalog: %v %v", err, res)
	}
	if progress.Load() == 0 {
		t.Errorf("no progress notification")
	}
	<-first

	// Cancelled halfway: the client cancels as soon as the first progress
	// report arrives; no output and no temporary file remain.
	out := e.path("root2/cancelled.tsv")
	ctx, cancel := context.WithCancel(context.Background())
	params = &mcp.CallToolParams{Name: "fs_catalog", Arguments: map[string]any{"target_dir": e.path("root/big"), "output_file": out}}
	params.SetProgressToken("p2")
	go func() {
		select {
		case <-first:
		case <-time.After(time.Millisecond):
		}
		cancel()
	}()
	if _, err := e.cs.CallTool(ctx, params); err == nil {
		t.Skip("the catalog finished before the cancellation arrived")
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ents, _ := os.ReadDir(e.root2); len(ents) == 1 { // full.tsv only
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("a cancelled catalog left %s", out)
	}
	leftovers(t, e.root2)
}

// A catalog stopped by --timeout leaves nothing either; the catalog
// package's TestCancelledLeavesNothing cancels one halfway.
func TestCatalogTimeout(t *testing.T) {
	e := newEnv(t, withLimits(func(l *tools.Limits) { l.Timeout = time.Nanosecond }))
	e.fails("fs_catalog", map[string]any{"target_dir": e.root, "output_file": filepath.Join(e.root2, "c.tsv")}, "took longer than the time limit (--timeout); no output file was written")
}
