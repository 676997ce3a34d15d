package files

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// tree makes root (with a.txt, d/b.txt, d/e/c.md, link-out -> outside)
// and outside, and the sandbox of root.
func trashTree(t *testing.T) (root, outside string, sb *sandbox.Sandbox) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "d", "e"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{"a.txt": "a", "d/b.txt": "bb", "d/e/c.md": "c"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link-out")); err != nil {
		t.Fatal(err)
	}
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	return root, outside, sb
}

func TestTrashMovesTheFile(t *testing.T) {
	root, outside, sb := trashTree(t)
	trash := filepath.Join(filepath.Dir(root), "data", "trash") // outside the roots, made on demand
	p, _ := sb.Resolve(filepath.Join(root, "d", "b.txt"))
	now := time.UnixMilli(1700000000123)
	got, err := Trash(context.Background(), p, trash, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(trash, "1700000000123_b.txt"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if data, err := os.ReadFile(got); err != nil || string(data) != "bb" {
		t.Errorf("trash file: %q %v", data, err)
	}
	if _, err := os.Lstat(filepath.Join(root, "d", "b.txt")); !os.IsNotExist(err) {
		t.Errorf("the file is still there: %v", err)
	}
	// A second file of the same name at the same ms is refused, not replaced.
	os.WriteFile(filepath.Join(root, "d", "b.txt"), []byte("new"), 0o644)
	if _, err := Trash(context.Background(), p, trash, now); fault.KindOf(err) != fault.Exists {
		t.Errorf("a clash: got %v, want Exists", err)
	}
	// Not a regular file: a directory, a symlink (out), a missing file.
	for _, name := range []string{"d", "link-out"} {
		q, _ := sb.Resolve(filepath.Join(root, name))
		if _, err := Trash(context.Background(), q, trash, now); fault.KindOf(err) != fault.NotDir {
			t.Errorf("%s: got %v, want NotDir", name, err)
		}
	}
	q, _ := sb.Resolve(filepath.Join(root, "missing"))
	if _, err := Trash(context.Background(), q, trash, now); fault.KindOf(err) != fault.NotFound {
		t.Errorf("missing: got %v, want NotFound", err)
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(data) != "s" {
		t.Errorf("the outside file changed")
	}
	if _, err := Trash(context.Background(), p, "relative/trash", now); fault.KindOf(err) != fault.Invalid {
		t.Errorf("a relative trash: got %v", err)
	}
}

func TestFindStopsAtMax(t *testing.T) {
	root, _, sb := trashTree(t)
	dir, _ := sb.Resolve(root)
	all, trunc, err := Find(context.Background(), dir, FindOptions{})
	if err != nil || trunc {
		t.Fatal(err, trunc)
	}
	var rels []string
	for _, e := range all {
		rels = append(rels, e.Rel+":"+string(e.Type))
	}
	want := "[a.txt:file d:directory d/b.txt:file d/e:directory d/e/c.md:file link-out:symlink]"
	if got := fmtList(rels); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	files, trunc, err := Find(context.Background(), dir, FindOptions{Max: 2, Match: func(name string, ty Type) bool { return ty == TypeFile }})
	if err != nil || !trunc || len(files) != 2 || files[1].Rel != "d/b.txt" {
		t.Errorf("max 2 files: %v %v %v", files, trunc, err)
	}
	top, _, _ := Find(context.Background(), dir, FindOptions{Depth: 1})
	if len(top) != 3 {
		t.Errorf("depth 1: %v", top)
	}
	link, _ := sb.Resolve(filepath.Join(root, "link-out"))
	if _, _, err := Find(context.Background(), link, FindOptions{}); err == nil {
		t.Errorf("a link out was walked")
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

// The copy path (other systems, other file systems) leaves the same result
// and never replaces a trash file.
func TestCopyToTrash(t *testing.T) {
	root, _, sb := trashTree(t)
	trash := t.TempDir()
	h, err := os.OpenRoot(trash)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	p, _ := sb.Resolve(filepath.Join(root, "a.txt"))
	if err := copyToTrash(p, h, filepath.Join(trash, "1_a.txt"), "1_a.txt"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(trash, "1_a.txt")); string(data) != "a" {
		t.Errorf("copied %q", data)
	}
	if err := copyToTrash(p, h, filepath.Join(trash, "1_a.txt"), "1_a.txt"); fault.KindOf(err) != fault.Exists {
		t.Errorf("a clash: %v", err)
	}
	link, _ := sb.Resolve(filepath.Join(root, "link-out"))
	if err := copyToTrash(link, h, filepath.Join(trash, "2_link"), "2_link"); err == nil {
		t.Errorf("a link out was copied")
	}
	if _, err := os.Lstat(filepath.Join(trash, "2_link")); !os.IsNotExist(err) {
		t.Errorf("a refused copy left a file: %v", err)
	}
}

// TestTrashInsideARootNeverFollowsALinkOut: LocalCowork's default trash
// (~/.localcowork/trash, ~ allowed) is a path the agent can change. With
// a link out at its data directory, or at the trash itself, delete is
// refused and nothing lands outside; a link that stays in the root is
// followed (the file stays in the roots).
func TestTrashInsideARootNeverFollowsALinkOut(t *testing.T) {
	root, outside, sb := trashTree(t)
	now := time.UnixMilli(1700000000123)
	data := filepath.Join(root, ".localcowork")
	for _, link := range []string{data, filepath.Join(data, "trash")} {
		os.RemoveAll(data)
		os.MkdirAll(filepath.Dir(link), 0o755)
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}
		p, _ := sb.Resolve(filepath.Join(root, "a.txt"))
		if _, err := Trash(context.Background(), p, filepath.Join(data, "trash"), now, sb); fault.KindOf(err) != fault.Outside {
			t.Errorf("link out at %s: got %v, want Outside", link, err)
		}
		entries, _ := os.ReadDir(outside)
		for _, e := range entries {
			if e.Name() != "secret.txt" {
				t.Errorf("link out at %s: %s was put outside", link, e.Name())
			}
		}
		if _, err := os.Stat(filepath.Join(root, "a.txt")); err != nil {
			t.Errorf("link out at %s: the file is gone: %v", link, err)
		}
	}
	// A real data directory in the root is made there, 0700.
	os.RemoveAll(data)
	p, _ := sb.Resolve(filepath.Join(root, "a.txt"))
	got, err := Trash(context.Background(), p, filepath.Join(data, "trash"), now, sb)
	if err != nil || got != filepath.Join(data, "trash", "1700000000123_a.txt") {
		t.Fatalf("a real trash in the root: %s %v", got, err)
	}
	if fi, err := os.Stat(filepath.Join(data, "trash")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("trash made as %v %v, want 0700", fi, err)
	}
}
