package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/tools"
)

func TestListHappyPath(t *testing.T) {
	e := newEnv(t)
	out := e.ok("fs_list", map[string]any{"path": e.root})
	for _, want := range []string{"a.txt", "sub/", "inlink -> a.txt", "dirlink -> " + e.outside} {
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
	deep := e.ok("fs_list", map[string]any{"path": e.root, "depth": 2})
	if !strings.Contains(deep, "sub/b.txt") {
		t.Errorf("depth 2 lacks sub/b.txt:\n%s", deep)
	}
	if strings.Contains(deep, "dirlink/secret") {
		t.Errorf("listing followed a symlink out of the root:\n%s", deep)
	}
	txt := e.ok("fs_list", map[string]any{"path": e.root, "depth": 3, "filter": "*.txt"})
	if !strings.Contains(txt, "sub/b.txt") || strings.Contains(txt, "inlink") || strings.Contains(txt, "sub/\n") {
		t.Errorf("filter *.txt:\n%s", txt)
	}
	none := e.ok("fs_list", map[string]any{"path": e.root, "filter": "*.nothing"})
	if !strings.Contains(none, "no entries match") {
		t.Errorf("empty filter result: %q", none)
	}
}

func TestListSkipsGitAndIgnored(t *testing.T) {
	e := newEnv(t)
	e.write("root/.git/HEAD", "ref\n")
	e.write("root/.gitignore", "build/\n*.log\n")
	e.write("root/build/out.bin", "x")
	e.write("root/keep.log", "log")
	out := e.ok("fs_list", map[string]any{"path": e.root, "depth": 3})
	if strings.Contains(out, ".git/") || strings.Contains(out, "HEAD") {
		t.Errorf(".git listed:\n%s", out)
	}
	if strings.Contains(out, "build/out.bin") || !strings.Contains(out, "skipped 1 gitignored directory: build/") {
		t.Errorf("gitignored build/ not skipped with a note:\n%s", out)
	}
	all := e.ok("fs_list", map[string]any{"path": e.root, "depth": 3, "include_ignored": true})
	if !strings.Contains(all, "build/out.bin") || strings.Contains(all, "HEAD") {
		t.Errorf("include_ignored:\n%s", all)
	}
}

func TestListCap(t *testing.T) {
	e := newEnv(t, withLimits(func(l *tools.Limits) { l.MaxResults = 3 }))
	out := e.ok("fs_list", map[string]any{"path": e.root, "depth": 2})
	if !strings.Contains(out, "(showing 3 of 7 entries") {
		t.Errorf("cap note missing:\n%s", out)
	}
}

func TestListErrors(t *testing.T) {
	e := newEnv(t)
	e.fails("fs_list", map[string]any{"path": filepath.Join(e.root, "nope")}, "file not found: "+filepath.Join(e.root, "nope"))
	e.fails("fs_list", map[string]any{"path": filepath.Join(e.root, "a.txt")}, "is not a directory")
	e.fails("fs_list", map[string]any{"path": e.root, "filter": "[oops"}, "not a valid glob")
	e.fails("fs_list", map[string]any{"path": "sub"}, "path must be absolute")
	e.fails("fs_list", map[string]any{"path": filepath.Join(e.root, "dirlink")}, "outside allowed directories")
	e.fails("fs_list", map[string]any{"path": filepath.Join(e.base, "root_evil")}, "outside allowed directories")
	e.fails("fs_list", map[string]any{"path": e.root + "/sub/../../outside"}, "outside allowed directories")
}

func TestListSchemaErrors(t *testing.T) {
	e := newEnv(t)
	if _, err := e.call("fs_list", map[string]any{}); err == nil || !strings.Contains(err.Error(), "path") {
		t.Errorf("missing path: %v, want -32602 naming path", err)
	}
	if _, err := e.call("fs_list", map[string]any{"path": e.root, "depth": "two"}); err == nil {
		t.Errorf("mistyped depth accepted")
	}
}

func TestStat(t *testing.T) {
	e := newEnv(t)
	os.Chmod(e.path("root/a.txt"), 0o640)
	mt := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	os.Chtimes(e.path("root/a.txt"), mt, mt)
	out := e.ok("fs_stat", map[string]any{"path": filepath.Join(e.root, "a.txt")})
	for _, want := range []string{"type: file", "size: 6", "mode: -rw-r----- (0640)", "uid: ", "gid: ", "modified: " + mt.Local().Format(time.RFC3339Nano), "accessed: ", "changed: ", "created: ", "mime: text/plain"} {
		if !strings.Contains(out, want) {
			t.Errorf("fs_stat lacks %q:\n%s", want, out)
		}
	}
	dir := e.ok("fs_stat", map[string]any{"path": filepath.Join(e.root, "sub")})
	if !strings.Contains(dir, "type: directory") || !strings.Contains(dir, "mime: inode/directory") {
		t.Errorf("fs_stat dir:\n%s", dir)
	}
	link := e.ok("fs_stat", map[string]any{"path": filepath.Join(e.root, "inlink")})
	if !strings.Contains(link, "-> a.txt") || !strings.Contains(link, "type: file") {
		t.Errorf("fs_stat symlink:\n%s", link)
	}
	root := e.ok("fs_stat", map[string]any{"path": e.root})
	if !strings.Contains(root, "type: directory") {
		t.Errorf("fs_stat root:\n%s", root)
	}
}

func TestStatErrors(t *testing.T) {
	e := newEnv(t)
	e.fails("fs_stat", map[string]any{"path": filepath.Join(e.root, "nope")}, "file not found: "+filepath.Join(e.root, "nope"))
	for _, p := range e.refusals() {
		e.fails("fs_stat", map[string]any{"path": p}, "outside allowed directories")
	}
}

func TestMkdir(t *testing.T) {
	e := newEnv(t)
	out := e.ok("fs_mkdir", map[string]any{"path": filepath.Join(e.root, "x", "y", "z")})
	if !strings.HasPrefix(out, "Created directory") {
		t.Errorf("fs_mkdir: %q", out)
	}
	if fi, err := os.Stat(e.path("root/x/y/z")); err != nil || !fi.IsDir() {
		t.Fatalf("directory not created: %v", err)
	}
	if out := e.ok("fs_mkdir", map[string]any{"path": filepath.Join(e.root, "x", "y")}); !strings.Contains(out, "already exists") {
		t.Errorf("existing dir: %q", out)
	}
	e.fails("fs_mkdir", map[string]any{"path": filepath.Join(e.root, "a.txt")}, "exists and is not a directory")
	e.fails("fs_mkdir", map[string]any{"path": filepath.Join(e.root, "a.txt", "sub")}, "")
	e.fails("fs_mkdir", map[string]any{"path": filepath.Join(e.root, "dirlink", "new")}, "outside allowed directories")
	e.fails("fs_mkdir", map[string]any{"path": filepath.Join(e.root, "dangling")}, "outside allowed directories")
	e.fails("fs_mkdir", map[string]any{"path": filepath.Join(e.base, "root_evil", "new")}, "outside allowed directories")
	e.fails("fs_mkdir", map[string]any{"path": e.root + "/../outside/new"}, "outside allowed directories")
}

func TestCopyFileKeepsModeAndMtime(t *testing.T) {
	e := newEnv(t)
	os.Chmod(e.path("root/a.txt"), 0o751)
	mt := time.Date(2023, 1, 2, 3, 4, 5, 600, time.UTC)
	os.Chtimes(e.path("root/a.txt"), mt, mt)
	e.ok("fs_copy", map[string]any{"source": filepath.Join(e.root, "a.txt"), "destination": filepath.Join(e.root, "new", "deep", "c.txt")})
	fi, err := os.Stat(e.path("root/new/deep/c.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o751 || !fi.ModTime().Equal(mt) {
		t.Errorf("copy has mode %v mtime %v, want 0751 %v", fi.Mode(), fi.ModTime(), mt)
	}
	if e.read("root/new/deep/c.txt") != "hello\n" || e.read("root/a.txt") != "hello\n" {
		t.Errorf("contents wrong")
	}
	leftovers(t, e.root)
}

func TestCopyTree(t *testing.T) {
	e := newEnv(t)
	e.write("root/tree/x/y.txt", "y")
	e.symlink("../x/y.txt", "root/tree/x/rel")
	os.Chmod(e.path("root/tree/x"), 0o750)
	mt := time.Date(2022, 2, 2, 2, 2, 2, 0, time.UTC)
	os.Chtimes(e.path("root/tree/x"), mt, mt)
	e.ok("fs_copy", map[string]any{"source": filepath.Join(e.root, "tree"), "destination": filepath.Join(e.root, "tree2")})
	if e.read("root/tree2/x/y.txt") != "y" {
		t.Errorf("tree copy content")
	}
	if l, _ := os.Readlink(e.path("root/tree2/x/rel")); l != "../x/y.txt" {
		t.Errorf("symlink copied as %q", l)
	}
	fi, _ := os.Stat(e.path("root/tree2/x"))
	if fi.Mode().Perm() != 0o750 || !fi.ModTime().Equal(mt) {
		t.Errorf("dir copy mode %v mtime %v", fi.Mode(), fi.ModTime())
	}
	// Into the second root.
	e.ok("fs_copy", map[string]any{"source": filepath.Join(e.root, "tree"), "destination": filepath.Join(e.root2, "tree")})
	if e.read("root2/tree/x/y.txt") != "y" {
		t.Errorf("cross-root copy content")
	}
	// Overwrite a file and a directory.
	e.write("root/other.txt", "other")
	e.ok("fs_copy", map[string]any{"source": filepath.Join(e.root, "a.txt"), "destination": filepath.Join(e.root, "other.txt"), "overwrite": true})
	if e.read("root/other.txt") != "hello\n" {
		t.Errorf("overwrite file")
	}
	e.write("root/tree3/old.txt", "old")
	e.ok("fs_copy", map[string]any{"source": filepath.Join(e.root, "tree"), "destination": filepath.Join(e.root, "tree3"), "overwrite": true})
	if e.exists("root/tree3/old.txt") || e.read("root/tree3/x/y.txt") != "y" {
		t.Errorf("overwrite dir did not replace it whole")
	}
	leftovers(t, e.root)
}

func TestCopyErrors(t *testing.T) {
	e := newEnv(t)
	a := filepath.Join(e.root, "a.txt")
	b := filepath.Join(e.root, "sub", "b.txt")
	e.fails("fs_copy", map[string]any{"source": a, "destination": b}, "destination "+b+" already exists; pass overwrite=true")
	e.fails("fs_copy", map[string]any{"source": filepath.Join(e.root, "nope"), "destination": b}, "file not found: "+filepath.Join(e.root, "nope"))
	e.fails("fs_copy", map[string]any{"source": a, "destination": filepath.Join(e.root, "sub"), "overwrite": true}, "cannot replace directory")
	e.fails("fs_copy", map[string]any{"source": filepath.Join(e.root, "sub"), "destination": filepath.Join(e.root, "sub", "inner")}, "into itself")
	e.fails("fs_copy", map[string]any{"source": a, "destination": a}, "onto itself")
	for _, p := range e.refusals() {
		e.fails("fs_copy", map[string]any{"source": p, "destination": filepath.Join(e.root, "copied")}, "outside")
		e.fails("fs_copy", map[string]any{"source": a, "destination": p, "overwrite": true}, "outside")
	}
	// A tree holding a link out is refused whole: nothing is left behind.
	e.write("root/tree/ok.txt", "ok")
	e.symlink(filepath.Join(e.outside, "secret"), "root/tree/zz-out")
	e.fails("fs_copy", map[string]any{"source": filepath.Join(e.root, "tree"), "destination": filepath.Join(e.root, "tree2")}, "is outside the allowed directories")
	// The copy of the root itself into the second root is fine; into itself is not.
	e.fails("fs_copy", map[string]any{"source": e.root, "destination": filepath.Join(e.root, "r")}, "into itself")
}

func TestMove(t *testing.T) {
	e := newEnv(t)
	e.ok("fs_move", map[string]any{"source": filepath.Join(e.root, "a.txt"), "destination": filepath.Join(e.root, "moved", "a2.txt")})
	if e.exists("root/a.txt") || e.read("root/moved/a2.txt") != "hello\n" {
		t.Errorf("file move")
	}
	e.ok("fs_move", map[string]any{"source": filepath.Join(e.root, "sub"), "destination": filepath.Join(e.root, "sub2")})
	if e.exists("root/sub") || e.read("root/sub2/b.txt") != "bee\n" {
		t.Errorf("dir move")
	}
	// Across roots: copy, then delete.
	e.ok("fs_move", map[string]any{"source": filepath.Join(e.root, "sub2"), "destination": filepath.Join(e.root2, "sub")})
	if e.exists("root/sub2") || e.read("root2/sub/b.txt") != "bee\n" {
		t.Errorf("cross-root move")
	}
	// Overwrite.
	e.write("root/x.txt", "x")
	e.write("root/y.txt", "y")
	e.ok("fs_move", map[string]any{"source": filepath.Join(e.root, "x.txt"), "destination": filepath.Join(e.root, "y.txt"), "overwrite": true})
	if e.exists("root/x.txt") || e.read("root/y.txt") != "x" {
		t.Errorf("overwrite move")
	}
	e.write("root/d1/new", "new")
	e.write("root/d2/old", "old")
	e.ok("fs_move", map[string]any{"source": filepath.Join(e.root, "d1"), "destination": filepath.Join(e.root, "d2"), "overwrite": true})
	if e.exists("root/d1") || e.exists("root/d2/old") || e.read("root/d2/new") != "new" {
		t.Errorf("overwrite dir move")
	}
	// The link itself moves; what it points to is untouched.
	e.ok("fs_move", map[string]any{"source": filepath.Join(e.root, "dirlink"), "destination": filepath.Join(e.root, "dirlink2")})
	if e.read("outside/secret") != "secret\n" || !e.exists("root/dirlink2") {
		t.Errorf("moving a link")
	}
	leftovers(t, e.root)
}

func TestMoveErrors(t *testing.T) {
	e := newEnv(t)
	a := filepath.Join(e.root, "a.txt")
	b := filepath.Join(e.root, "sub", "b.txt")
	e.fails("fs_move", map[string]any{"source": a, "destination": b}, "destination "+b+" already exists; pass overwrite=true")
	e.fails("fs_move", map[string]any{"source": filepath.Join(e.root, "nope"), "destination": filepath.Join(e.root, "n2")}, "file not found")
	e.fails("fs_move", map[string]any{"source": e.root, "destination": filepath.Join(e.root2, "r")}, "refusing to move the allowed directory")
	e.fails("fs_move", map[string]any{"source": filepath.Join(e.root, "sub"), "destination": filepath.Join(e.root, "sub", "in")}, "into itself")
	e.fails("fs_move", map[string]any{"source": filepath.Join(e.root, "sub"), "destination": e.root2, "overwrite": true}, "refusing to replace the allowed directory")
	for name, p := range e.refusals() {
		if name == "symlink file out" || name == "dangling out" {
			continue // moving a link moves the link itself (TestMove)
		}
		e.fails("fs_move", map[string]any{"source": p, "destination": filepath.Join(e.root, "moved")}, "outside")
	}
	for _, p := range e.refusals() {
		e.fails("fs_move", map[string]any{"source": a, "destination": p, "overwrite": true}, "outside")
	}
	// Across roots a link out cannot be copied, so the move is refused whole.
	e.fails("fs_move", map[string]any{"source": filepath.Join(e.root, "filelink"), "destination": filepath.Join(e.root2, "l")}, "outside the allowed directories")
}

func TestDelete(t *testing.T) {
	e := newEnv(t)
	e.ok("fs_delete", map[string]any{"path": filepath.Join(e.root, "a.txt")})
	if e.exists("root/a.txt") {
		t.Errorf("file not deleted")
	}
	e.mkdir("root/empty")
	e.ok("fs_delete", map[string]any{"path": filepath.Join(e.root, "empty")})
	e.fails("fs_delete", map[string]any{"path": filepath.Join(e.root, "sub")}, filepath.Join(e.root, "sub")+" is a directory that is not empty; pass recursive=true")
	e.ok("fs_delete", map[string]any{"path": filepath.Join(e.root, "sub"), "recursive": true})
	if e.exists("root/sub") {
		t.Errorf("tree not deleted")
	}
	// Deleting a link deletes the link, never its target.
	e.ok("fs_delete", map[string]any{"path": filepath.Join(e.root, "dirlink"), "recursive": true})
	if e.exists("root/dirlink") || e.read("outside/secret") != "secret\n" {
		t.Errorf("deleting a link")
	}
}

func TestDeleteErrors(t *testing.T) {
	e := newEnv(t)
	e.fails("fs_delete", map[string]any{"path": e.root, "recursive": true}, "refusing to delete the allowed directory "+e.root)
	e.fails("fs_delete", map[string]any{"path": e.root + "/", "recursive": true}, "refusing to delete the allowed directory")
	e.fails("fs_delete", map[string]any{"path": filepath.Join(e.root, "nope")}, "file not found: "+filepath.Join(e.root, "nope"))
	for name, p := range e.refusals() {
		if name == "symlink file out" || name == "dangling out" {
			continue // deleting a link deletes the link itself (TestDelete)
		}
		e.fails("fs_delete", map[string]any{"path": p, "recursive": true}, "outside allowed directories")
	}
	// "dirlink/" names the link too: the link goes, the directory it
	// points to stays.
	e.ok("fs_delete", map[string]any{"path": filepath.Join(e.root, "dirlink") + "/", "recursive": true})
	if e.exists("root/dirlink") || e.read("outside/secret") != "secret\n" {
		t.Errorf("deleting dirlink/")
	}
}

func TestAnnotations(t *testing.T) {
	for _, tool := range tools.All() {
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
	want := map[string][2]bool{ // readOnly, destructive
		"fs_list": {true, false}, "fs_stat": {true, false}, "fs_mkdir": {false, false},
		"fs_move": {false, true}, "fs_copy": {false, true}, "fs_delete": {false, true},
	}
	for _, tool := range tools.All() {
		w, ok := want[tool.Def.Name]
		if !ok {
			continue
		}
		a := tool.Def.Annotations
		if a.ReadOnlyHint != w[0] || (!w[0] && *a.DestructiveHint != w[1]) {
			t.Errorf("%s annotations %+v, want readOnly=%v destructive=%v", tool.Def.Name, a, w[0], w[1])
		}
	}
}

// leftovers fails if a temporary file of fsmcp's is left under dir.
func leftovers(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".fsmcp-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}
