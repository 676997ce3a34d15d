package fsmcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles/fsmcp"
	"github.com/fsmcp/fsmcp/toolkit"
)

func TestListHappyPath(t *testing.T) {
	e := testenv.New(t)
	out := e.OK("fs_list", map[string]any{"path": e.Root})
	for _, want := range []string{"a.txt", "sub/", "inlink -> a.txt", "dirlink -> " + e.Outside} {
		if !strings.Contains(out, want) {
			t.Errorf("fs_list output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sub/b.txt") {
		t.Errorf("depth 1 went below sub:\n%s", out)
	}
	if !strings.Contains(out, "file") || !strings.Contains(out, "      6  ") && !strings.Contains(out, " 6  ") {
		t.Errorf("fs_list shows no type/size:\n%s", out)
	}
	deep := e.OK("fs_list", map[string]any{"path": e.Root, "depth": 2})
	if !strings.Contains(deep, "sub/b.txt") {
		t.Errorf("depth 2 lacks sub/b.txt:\n%s", deep)
	}
	if strings.Contains(deep, "dirlink/secret") {
		t.Errorf("listing followed a symlink out of the root:\n%s", deep)
	}
	txt := e.OK("fs_list", map[string]any{"path": e.Root, "depth": 3, "filter": "*.txt"})
	if !strings.Contains(txt, "sub/b.txt") || strings.Contains(txt, "inlink") || strings.Contains(txt, "sub/\n") {
		t.Errorf("filter *.txt:\n%s", txt)
	}
	none := e.OK("fs_list", map[string]any{"path": e.Root, "filter": "*.nothing"})
	if !strings.Contains(none, "no entries match") {
		t.Errorf("empty filter result: %q", none)
	}
}

func TestListSkipsGitAndIgnored(t *testing.T) {
	e := testenv.New(t)
	e.Write("root/.git/HEAD", "ref\n")
	e.Write("root/.gitignore", "build/\n*.log\n")
	e.Write("root/build/out.bin", "x")
	e.Write("root/keep.log", "log")
	out := e.OK("fs_list", map[string]any{"path": e.Root, "depth": 3})
	if strings.Contains(out, ".git/") || strings.Contains(out, "HEAD") {
		t.Errorf(".git listed:\n%s", out)
	}
	if strings.Contains(out, "build/out.bin") || !strings.Contains(out, "skipped 1 gitignored directory: build/") {
		t.Errorf("gitignored build/ not skipped with a note:\n%s", out)
	}
	all := e.OK("fs_list", map[string]any{"path": e.Root, "depth": 3, "include_ignored": true})
	if !strings.Contains(all, "build/out.bin") || strings.Contains(all, "HEAD") {
		t.Errorf("include_ignored:\n%s", all)
	}
}

func TestListCap(t *testing.T) {
	e := testenv.New(t, testenv.WithLimits(func(l *toolkit.Limits) { l.MaxResults = 3 }))
	out := e.OK("fs_list", map[string]any{"path": e.Root, "depth": 2})
	if !strings.Contains(out, "(showing 3 of 7 entries") {
		t.Errorf("cap note missing:\n%s", out)
	}
}

func TestListErrors(t *testing.T) {
	e := testenv.New(t)
	e.Fails("fs_list", map[string]any{"path": filepath.Join(e.Root, "nope")}, "file not found: "+filepath.Join(e.Root, "nope"))
	e.Fails("fs_list", map[string]any{"path": filepath.Join(e.Root, "a.txt")}, "is not a directory")
	e.Fails("fs_list", map[string]any{"path": e.Root, "filter": "[oops"}, "not a valid glob")
	e.Fails("fs_list", map[string]any{"path": "sub"}, "path must be absolute")
	e.Fails("fs_list", map[string]any{"path": filepath.Join(e.Root, "dirlink")}, "outside allowed directories")
	e.Fails("fs_list", map[string]any{"path": filepath.Join(e.Base, "root_evil")}, "outside allowed directories")
	e.Fails("fs_list", map[string]any{"path": e.Root + "/sub/../../outside"}, "outside allowed directories")
}

// Argument errors are isError results the model can read (SEP-1303), as
// in fsMCP, not JSON-RPC -32602.
func TestListSchemaErrors(t *testing.T) {
	e := testenv.New(t)
	e.Fails("fs_list", map[string]any{}, "path")
	e.Fails("fs_list", map[string]any{"path": e.Root, "depth": "two"}, "depth")
}

func TestStat(t *testing.T) {
	e := testenv.New(t)
	os.Chmod(e.Path("root/a.txt"), 0o640)
	mt := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	os.Chtimes(e.Path("root/a.txt"), mt, mt)
	out := e.OK("fs_stat", map[string]any{"path": filepath.Join(e.Root, "a.txt")})
	for _, want := range []string{"type: file", "size: 6", "mode: -rw-r----- (0640)", "uid: ", "gid: ", "modified: " + mt.Local().Format(time.RFC3339Nano), "accessed: ", "changed: ", "created: ", "mime: text/plain"} {
		if !strings.Contains(out, want) {
			t.Errorf("fs_stat lacks %q:\n%s", want, out)
		}
	}
	dir := e.OK("fs_stat", map[string]any{"path": filepath.Join(e.Root, "sub")})
	if !strings.Contains(dir, "type: directory") || !strings.Contains(dir, "mime: inode/directory") {
		t.Errorf("fs_stat dir:\n%s", dir)
	}
	link := e.OK("fs_stat", map[string]any{"path": filepath.Join(e.Root, "inlink")})
	if !strings.Contains(link, "-> a.txt") || !strings.Contains(link, "type: file") {
		t.Errorf("fs_stat symlink:\n%s", link)
	}
	root := e.OK("fs_stat", map[string]any{"path": e.Root})
	if !strings.Contains(root, "type: directory") {
		t.Errorf("fs_stat root:\n%s", root)
	}
}

func TestStatErrors(t *testing.T) {
	e := testenv.New(t)
	e.Fails("fs_stat", map[string]any{"path": filepath.Join(e.Root, "nope")}, "file not found: "+filepath.Join(e.Root, "nope"))
	for _, p := range e.Refusals() {
		e.Fails("fs_stat", map[string]any{"path": p}, "outside allowed directories")
	}
}

func TestMkdir(t *testing.T) {
	e := testenv.New(t)
	out := e.OK("fs_mkdir", map[string]any{"path": filepath.Join(e.Root, "x", "y", "z")})
	if !strings.HasPrefix(out, "Created directory") {
		t.Errorf("fs_mkdir: %q", out)
	}
	if fi, err := os.Stat(e.Path("root/x/y/z")); err != nil || !fi.IsDir() {
		t.Fatalf("directory not created: %v", err)
	}
	if out := e.OK("fs_mkdir", map[string]any{"path": filepath.Join(e.Root, "x", "y")}); !strings.Contains(out, "already exists") {
		t.Errorf("existing dir: %q", out)
	}
	e.Fails("fs_mkdir", map[string]any{"path": filepath.Join(e.Root, "a.txt")}, "exists and is not a directory")
	e.Fails("fs_mkdir", map[string]any{"path": filepath.Join(e.Root, "a.txt", "sub")}, "")
	e.Fails("fs_mkdir", map[string]any{"path": filepath.Join(e.Root, "dirlink", "new")}, "outside allowed directories")
	e.Fails("fs_mkdir", map[string]any{"path": filepath.Join(e.Root, "dangling")}, "outside allowed directories")
	e.Fails("fs_mkdir", map[string]any{"path": filepath.Join(e.Base, "root_evil", "new")}, "outside allowed directories")
	e.Fails("fs_mkdir", map[string]any{"path": e.Root + "/../outside/new"}, "outside allowed directories")
}

func TestCopyFileKeepsModeAndMtime(t *testing.T) {
	e := testenv.New(t)
	os.Chmod(e.Path("root/a.txt"), 0o751)
	mt := time.Date(2023, 1, 2, 3, 4, 5, 600, time.UTC)
	os.Chtimes(e.Path("root/a.txt"), mt, mt)
	e.OK("fs_copy", map[string]any{"source": filepath.Join(e.Root, "a.txt"), "destination": filepath.Join(e.Root, "new", "deep", "c.txt")})
	fi, err := os.Stat(e.Path("root/new/deep/c.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o751 || !fi.ModTime().Equal(mt) {
		t.Errorf("copy has mode %v mtime %v, want 0751 %v", fi.Mode(), fi.ModTime(), mt)
	}
	if e.Read("root/new/deep/c.txt") != "hello\n" || e.Read("root/a.txt") != "hello\n" {
		t.Errorf("contents wrong")
	}
	testenv.Leftovers(t, e.Root)
}

func TestCopyTree(t *testing.T) {
	e := testenv.New(t)
	e.Write("root/tree/x/y.txt", "y")
	e.Symlink("../x/y.txt", "root/tree/x/rel")
	os.Chmod(e.Path("root/tree/x"), 0o750)
	mt := time.Date(2022, 2, 2, 2, 2, 2, 0, time.UTC)
	os.Chtimes(e.Path("root/tree/x"), mt, mt)
	e.OK("fs_copy", map[string]any{"source": filepath.Join(e.Root, "tree"), "destination": filepath.Join(e.Root, "tree2")})
	if e.Read("root/tree2/x/y.txt") != "y" {
		t.Errorf("tree copy content")
	}
	if l, _ := os.Readlink(e.Path("root/tree2/x/rel")); l != "../x/y.txt" {
		t.Errorf("symlink copied as %q", l)
	}
	fi, _ := os.Stat(e.Path("root/tree2/x"))
	if fi.Mode().Perm() != 0o750 || !fi.ModTime().Equal(mt) {
		t.Errorf("dir copy mode %v mtime %v", fi.Mode(), fi.ModTime())
	}
	// Into the second root.
	e.OK("fs_copy", map[string]any{"source": filepath.Join(e.Root, "tree"), "destination": filepath.Join(e.Root2, "tree")})
	if e.Read("root2/tree/x/y.txt") != "y" {
		t.Errorf("cross-root copy content")
	}
	// Overwrite a file and a directory.
	e.Write("root/other.txt", "other")
	e.OK("fs_copy", map[string]any{"source": filepath.Join(e.Root, "a.txt"), "destination": filepath.Join(e.Root, "other.txt"), "overwrite": true})
	if e.Read("root/other.txt") != "hello\n" {
		t.Errorf("overwrite file")
	}
	e.Write("root/tree3/old.txt", "old")
	e.OK("fs_copy", map[string]any{"source": filepath.Join(e.Root, "tree"), "destination": filepath.Join(e.Root, "tree3"), "overwrite": true})
	if e.Exists("root/tree3/old.txt") || e.Read("root/tree3/x/y.txt") != "y" {
		t.Errorf("overwrite dir did not replace it whole")
	}
	testenv.Leftovers(t, e.Root)
}

func TestCopyErrors(t *testing.T) {
	e := testenv.New(t)
	a := filepath.Join(e.Root, "a.txt")
	b := filepath.Join(e.Root, "sub", "b.txt")
	e.Fails("fs_copy", map[string]any{"source": a, "destination": b}, "destination "+b+" already exists; pass overwrite=true")
	e.Fails("fs_copy", map[string]any{"source": filepath.Join(e.Root, "nope"), "destination": b}, "file not found: "+filepath.Join(e.Root, "nope"))
	e.Fails("fs_copy", map[string]any{"source": a, "destination": filepath.Join(e.Root, "sub"), "overwrite": true}, "cannot replace directory")
	e.Fails("fs_copy", map[string]any{"source": filepath.Join(e.Root, "sub"), "destination": filepath.Join(e.Root, "sub", "inner")}, "into itself")
	e.Fails("fs_copy", map[string]any{"source": a, "destination": a}, "onto itself")
	for _, p := range e.Refusals() {
		e.Fails("fs_copy", map[string]any{"source": p, "destination": filepath.Join(e.Root, "copied")}, "outside")
		e.Fails("fs_copy", map[string]any{"source": a, "destination": p, "overwrite": true}, "outside")
	}
	// A tree holding a link out is refused whole: nothing is left behind.
	e.Write("root/tree/ok.txt", "ok")
	e.Symlink(filepath.Join(e.Outside, "secret"), "root/tree/zz-out")
	e.Fails("fs_copy", map[string]any{"source": filepath.Join(e.Root, "tree"), "destination": filepath.Join(e.Root, "tree2")},
		"cannot copy symlink "+filepath.Join(e.Root, "tree", "zz-out")+": its target is outside allowed directories: "+e.Root+", "+e.Root2)
	// The copy of the root itself into the second root is fine; into itself is not.
	e.Fails("fs_copy", map[string]any{"source": e.Root, "destination": filepath.Join(e.Root, "r")}, "into itself")
}

func TestMove(t *testing.T) {
	e := testenv.New(t)
	e.OK("fs_move", map[string]any{"source": filepath.Join(e.Root, "a.txt"), "destination": filepath.Join(e.Root, "moved", "a2.txt")})
	if e.Exists("root/a.txt") || e.Read("root/moved/a2.txt") != "hello\n" {
		t.Errorf("file move")
	}
	e.OK("fs_move", map[string]any{"source": filepath.Join(e.Root, "sub"), "destination": filepath.Join(e.Root, "sub2")})
	if e.Exists("root/sub") || e.Read("root/sub2/b.txt") != "bee\n" {
		t.Errorf("dir move")
	}
	// Across roots: copy, then delete.
	e.OK("fs_move", map[string]any{"source": filepath.Join(e.Root, "sub2"), "destination": filepath.Join(e.Root2, "sub")})
	if e.Exists("root/sub2") || e.Read("root2/sub/b.txt") != "bee\n" {
		t.Errorf("cross-root move")
	}
	// Overwrite.
	e.Write("root/x.txt", "x")
	e.Write("root/y.txt", "y")
	e.OK("fs_move", map[string]any{"source": filepath.Join(e.Root, "x.txt"), "destination": filepath.Join(e.Root, "y.txt"), "overwrite": true})
	if e.Exists("root/x.txt") || e.Read("root/y.txt") != "x" {
		t.Errorf("overwrite move")
	}
	e.Write("root/d1/new", "new")
	e.Write("root/d2/old", "old")
	e.OK("fs_move", map[string]any{"source": filepath.Join(e.Root, "d1"), "destination": filepath.Join(e.Root, "d2"), "overwrite": true})
	if e.Exists("root/d1") || e.Exists("root/d2/old") || e.Read("root/d2/new") != "new" {
		t.Errorf("overwrite dir move")
	}
	// The link itself moves; what it points to is untouched.
	e.OK("fs_move", map[string]any{"source": filepath.Join(e.Root, "dirlink"), "destination": filepath.Join(e.Root, "dirlink2")})
	if e.Read("outside/secret") != "secret\n" || !e.Exists("root/dirlink2") {
		t.Errorf("moving a link")
	}
	testenv.Leftovers(t, e.Root)
}

func TestMoveErrors(t *testing.T) {
	e := testenv.New(t)
	a := filepath.Join(e.Root, "a.txt")
	b := filepath.Join(e.Root, "sub", "b.txt")
	e.Fails("fs_move", map[string]any{"source": a, "destination": b}, "destination "+b+" already exists; pass overwrite=true")
	e.Fails("fs_move", map[string]any{"source": filepath.Join(e.Root, "nope"), "destination": filepath.Join(e.Root, "n2")}, "file not found")
	e.Fails("fs_move", map[string]any{"source": e.Root, "destination": filepath.Join(e.Root2, "r")}, "refusing to move the allowed directory")
	e.Fails("fs_move", map[string]any{"source": filepath.Join(e.Root, "sub"), "destination": filepath.Join(e.Root, "sub", "in")}, "into itself")
	e.Fails("fs_move", map[string]any{"source": filepath.Join(e.Root, "sub"), "destination": e.Root2, "overwrite": true}, "refusing to replace the allowed directory")
	for name, p := range e.Refusals() {
		if name == "symlink file out" || name == "dangling out" {
			continue // moving a link moves the link itself (TestMove)
		}
		e.Fails("fs_move", map[string]any{"source": p, "destination": filepath.Join(e.Root, "moved")}, "outside")
	}
	for _, p := range e.Refusals() {
		e.Fails("fs_move", map[string]any{"source": a, "destination": p, "overwrite": true}, "outside")
	}
	// Across roots a link out cannot be copied, so the move is refused whole.
	e.Fails("fs_move", map[string]any{"source": filepath.Join(e.Root, "filelink"), "destination": filepath.Join(e.Root2, "l")}, "outside allowed directories: "+e.Root+", "+e.Root2)
}

func TestDelete(t *testing.T) {
	e := testenv.New(t)
	e.OK("fs_delete", map[string]any{"path": filepath.Join(e.Root, "a.txt")})
	if e.Exists("root/a.txt") {
		t.Errorf("file not deleted")
	}
	e.Mkdir("root/empty")
	e.OK("fs_delete", map[string]any{"path": filepath.Join(e.Root, "empty")})
	e.Fails("fs_delete", map[string]any{"path": filepath.Join(e.Root, "sub")}, filepath.Join(e.Root, "sub")+" is a directory that is not empty; pass recursive=true")
	e.OK("fs_delete", map[string]any{"path": filepath.Join(e.Root, "sub"), "recursive": true})
	if e.Exists("root/sub") {
		t.Errorf("tree not deleted")
	}
	// Deleting a link deletes the link, never its target.
	e.OK("fs_delete", map[string]any{"path": filepath.Join(e.Root, "dirlink"), "recursive": true})
	if e.Exists("root/dirlink") || e.Read("outside/secret") != "secret\n" {
		t.Errorf("deleting a link")
	}
}

func TestDeleteErrors(t *testing.T) {
	e := testenv.New(t)
	e.Fails("fs_delete", map[string]any{"path": e.Root, "recursive": true}, "refusing to delete the allowed directory "+e.Root)
	e.Fails("fs_delete", map[string]any{"path": e.Root + "/", "recursive": true}, "refusing to delete the allowed directory")
	e.Fails("fs_delete", map[string]any{"path": filepath.Join(e.Root, "nope")}, "file not found: "+filepath.Join(e.Root, "nope"))
	for name, p := range e.Refusals() {
		if name == "symlink file out" || name == "dangling out" {
			continue // deleting a link deletes the link itself (TestDelete)
		}
		e.Fails("fs_delete", map[string]any{"path": p, "recursive": true}, "outside allowed directories")
	}
	// "dirlink/" names the link too: the link goes, the directory it
	// points to stays.
	e.OK("fs_delete", map[string]any{"path": filepath.Join(e.Root, "dirlink") + "/", "recursive": true})
	if e.Exists("root/dirlink") || e.Read("outside/secret") != "secret\n" {
		t.Errorf("deleting dirlink/")
	}
}

func TestAnnotations(t *testing.T) {
	for _, tool := range fsmcp.All() {
		a := tool.Def.Annotations
		if tool.Def.Description == "" {
			t.Errorf("%s has no description", tool.Def.Name)
		}
		if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint must be false", tool.Def.Name)
		}
		if !a.ReadOnlyHint && a.DestructiveHint == nil {
			t.Errorf("%s: a writer must set destructiveHint", tool.Def.Name)
		}
	}
	want := map[string][3]bool{ // readOnly, destructive, idempotent
		"fs_list": {true, false, false}, "fs_stat": {true, false, false}, "fs_watch": {true, false, false},
		"fs_mkdir": {false, false, true}, "fs_move": {false, true, false}, "fs_copy": {false, true, true},
		"fs_delete": {false, true, true}, "fs_catalog": {false, false, true},
	}
	for _, tool := range fsmcp.All() {
		w, ok := want[tool.Def.Name]
		if !ok {
			continue
		}
		a := tool.Def.Annotations
		if a.ReadOnlyHint != w[0] || (!w[0] && (*a.DestructiveHint != w[1] || a.IdempotentHint != w[2])) {
			t.Errorf("%s annotations %+v, want readOnly=%v destructive=%v idempotent=%v", tool.Def.Name, a, w[0], w[1], w[2])
		}
	}
}

func TestCopyIntoItselfThroughLink(t *testing.T) {
	e := testenv.New(t)
	e.Symlink("sub", "root/subalias")
	e.Fails("fs_copy", map[string]any{"source": filepath.Join(e.Root, "sub"), "destination": filepath.Join(e.Root, "subalias", "again")}, "into itself")
	e.Fails("fs_copy", map[string]any{"source": e.Root, "destination": filepath.Join(e.Root, "subalias", "r")}, "into itself")
}

func TestStatDanglingInside(t *testing.T) {
	e := testenv.New(t)
	e.Symlink("missing.txt", "root/broken")
	e.Fails("fs_stat", map[string]any{"path": filepath.Join(e.Root, "broken")}, filepath.Join(e.Root, "broken")+" is a symlink to missing.txt, which does not exist")
}

func TestListUnreadableSubdirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	e := testenv.New(t)
	e.Mkdir("root/locked/inner")
	os.Chmod(e.Path("root/locked"), 0)
	t.Cleanup(func() { os.Chmod(e.Path("root/locked"), 0o755) })
	out := e.OK("fs_list", map[string]any{"path": e.Root, "depth": 3})
	if !strings.Contains(out, "locked/") || !strings.Contains(out, "(could not read 1 directory: locked/)") {
		t.Errorf("unreadable directory:\n%s", out)
	}
}
