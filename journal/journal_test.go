//go:build unix

package journal_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/catalog"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// world is a journal over one or two DIRs.
type world struct {
	t     *testing.T
	roots []string
	sb    *sandbox.Sandbox
	j     *journal.Set
	dir   string // the journal's directory
}

func newWorld(t *testing.T, n int, size int64) *world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, dir: filepath.Join(base, "state")}
	for i := range n {
		r := filepath.Join(base, fmt.Sprintf("root%d", i))
		os.MkdirAll(r, 0o755)
		w.roots = append(w.roots, r)
	}
	sb, errs := sandbox.New(w.roots)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	w.sb = sb
	w.j = journal.New(journal.Config{Dir: w.dir, MaxSize: size}, files.JournalOps{})
	return w
}

func (w *world) path(rel string) *sandbox.Path {
	w.t.Helper()
	p, err := w.sb.Resolve(filepath.Join(w.roots[0], rel))
	if err != nil {
		w.t.Fatal(err)
	}
	return p
}

// step runs fn as one call of tool and returns what its end said.
func (w *world) step(tool string, fn func(ctx context.Context) error) []string {
	w.t.Helper()
	st := w.j.Begin(journal.Actor{Tool: tool, Session: "secret-session-id"}, w.sb.Roots())
	ctx := journal.With(context.Background(), st)
	if err := fn(ctx); err != nil {
		w.t.Fatalf("%s: %v", tool, err)
	}
	return st.End(ctx)
}

func (w *world) store(i int) *journal.Store {
	st, err := w.j.Store(w.roots[i])
	if err != nil {
		w.t.Fatal(err)
	}
	return st
}

func (w *world) undo(i int, sel journal.Select, why journal.Purpose) *journal.Report {
	w.t.Helper()
	es, err := w.store(i).Pick(sel, why)
	if err != nil {
		w.t.Fatal(err)
	}
	return w.j.Undo(context.Background(), w.sb, es, false, journal.Actor{Tool: "test undo"})
}

// snapshot is every path below the roots with its type, mode, owner,
// times and content.
func (w *world) snapshot() map[string]string {
	out := map[string]string{}
	for i, r := range w.roots {
		filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return nil
			}
			st := fi.Sys().(*syscall.Stat_t)
			s := fmt.Sprintf("%v %d:%d mtime=%d", fi.Mode(), st.Uid, st.Gid, fi.ModTime().UnixNano())
			switch {
			case fi.Mode().IsRegular():
				b, _ := os.ReadFile(p)
				s += fmt.Sprintf(" %x", sha256.Sum256(b))
			case fi.Mode()&fs.ModeSymlink != 0:
				t, _ := os.Readlink(p)
				s += " -> " + t
			}
			rel, _ := filepath.Rel(r, p)
			out[fmt.Sprintf("%d:%s", i, rel)] = s
			return nil
		})
	}
	return out
}

func diff(a, b map[string]string) string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if a[k] != b[k] {
			out = append(out, fmt.Sprintf("%s: %q != %q", k, a[k], b[k]))
		}
	}
	return strings.Join(out, "\n")
}

func write(t *testing.T, p, s string, mode os.FileMode, mtime time.Time) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, mode)
	os.Chtimes(p, mtime, mtime)
}

var old = time.Date(2020, 1, 2, 3, 4, 5, 6000, time.UTC)

// fixture fills root 0 (and 1) with a tree of every kind: files small
// and large, set-uid and set-gid modes, a sticky directory, a link, a
// pipe, an empty directory, all with old times.
func (w *world) fixture() {
	r := w.roots[0]
	write(w.t, r+"/small.txt", "small\n", 0o640, old)
	write(w.t, r+"/big.bin", strings.Repeat("0123456789abcdef", 4096), 0o644, old)
	write(w.t, r+"/suid", "#!/bin/sh\n", 0o4755, old)
	write(w.t, r+"/tree/a.txt", "a\n", 0o600, old)
	write(w.t, r+"/tree/deep/b.txt", strings.Repeat("b", 20000), 0o644, old)
	os.Symlink("a.txt", r+"/tree/link")
	syscall.Mkfifo(r+"/tree/pipe", 0o600)
	os.MkdirAll(r+"/tree/empty", 0o750)
	os.Chmod(r+"/tree", 0o2775)
	os.MkdirAll(r+"/sticky", 0o777)
	os.Chmod(r+"/sticky", 0o1777)
	for _, d := range []string{"/tree/deep", "/tree/empty", "/tree", "/sticky", ""} {
		os.Chtimes(r+d, old, old)
	}
	if len(w.roots) > 1 {
		write(w.t, w.roots[1]+"/other.txt", "other\n", 0o644, old)
		os.Chtimes(w.roots[1], old, old)
	}
}

// TestEveryChangeComesBackWhole makes each kind of change through the
// writers of package files (and the catalog), undoes it, and finds every
// byte, mode (set-uid, set-gid, sticky), owner, time, link, pipe and
// directory as before; then redoes it and finds the change again.
func TestEveryChangeComesBackWhole(t *testing.T) {
	cases := []struct {
		name  string
		roots int
		do    func(w *world, ctx context.Context) error
	}{
		{"edit a small file", 1, func(w *world, ctx context.Context) error {
			return files.Modify(ctx, w.path("small.txt"), 0, func(b []byte) ([]byte, error) { return append(b, "more\n"...), nil })
		}},
		{"edit a large file", 1, func(w *world, ctx context.Context) error {
			return files.Modify(ctx, w.path("big.bin"), 0, func(b []byte) ([]byte, error) { return b[100:], nil })
		}},
		{"edit a set-uid file", 1, func(w *world, ctx context.Context) error {
			return files.Write(ctx, w.path("suid"), []byte("#!/bin/sh\necho\n"))
		}},
		{"write with new parents", 1, func(w *world, ctx context.Context) error {
			return files.Write(ctx, w.path("new/dirs/on/the/way.txt"), []byte("x"))
		}},
		{"mkdir -p", 1, func(w *world, ctx context.Context) error {
			_, err := files.Mkdir(ctx, w.path("m/n/o"))
			return err
		}},
		{"delete a file", 1, func(w *world, ctx context.Context) error { return files.Delete(ctx, w.path("small.txt"), false) }},
		{"delete a link", 1, func(w *world, ctx context.Context) error { return files.Delete(ctx, w.path("tree/link"), false) }},
		{"delete a pipe", 1, func(w *world, ctx context.Context) error { return files.Delete(ctx, w.path("tree/pipe"), false) }},
		{"delete a tree", 1, func(w *world, ctx context.Context) error { return files.Delete(ctx, w.path("tree"), true) }},
		{"copy a tree", 1, func(w *world, ctx context.Context) error {
			return files.Copy(ctx, w.path("tree/deep"), w.path("copy/of/deep"), false)
		}},
		{"copy a file over another", 1, func(w *world, ctx context.Context) error {
			return files.Copy(ctx, w.path("small.txt"), w.path("big.bin"), true)
		}},
		{"rename a tree", 1, func(w *world, ctx context.Context) error {
			return files.Move(ctx, w.path("tree"), w.path("moved/tree"), false)
		}},
		{"move a file over another", 1, func(w *world, ctx context.Context) error {
			return files.Move(ctx, w.path("small.txt"), w.path("suid"), true)
		}},
		{"move a tree to another root", 2, func(w *world, ctx context.Context) error {
			dst, _ := w.sb.Resolve(filepath.Join(w.roots[1], "arrived"))
			return files.Move(ctx, w.path("tree"), dst, false)
		}},
		{"chmod a set-gid directory", 1, func(w *world, ctx context.Context) error {
			return files.Chmod(ctx, w.path("tree"), 0o755)
		}},
		{"chmod a set-uid file", 1, func(w *world, ctx context.Context) error {
			return files.Chmod(ctx, w.path("suid"), 0o600)
		}},
		{"two files in one call", 1, func(w *world, ctx context.Context) error {
			if err := files.Write(ctx, w.path("small.txt"), []byte("1")); err != nil {
				return err
			}
			return files.Write(ctx, w.path("tree/a.txt"), []byte("2"))
		}},
		{"the catalog", 1, func(w *world, ctx context.Context) error {
			_, err := catalog.Create(ctx, w.path("tree"), w.path("out/catalog.tsv"), catalog.Options{})
			if err != nil && strings.Contains(err.Error(), "directory of output_file") {
				os.MkdirAll(w.roots[0]+"/out", 0o755)
				os.Chtimes(w.roots[0], old, old)
				return fmt.Errorf("fixture: %v", err)
			}
			return err
		}},
		{"the trash, outside the roots", 1, func(w *world, ctx context.Context) error {
			_, err := files.Trash(ctx, w.path("small.txt"), filepath.Join(filepath.Dir(w.roots[0]), "trash"), time.Now())
			return err
		}},
	}
	if os.Getuid() == 0 {
		cases = append(cases, struct {
			name  string
			roots int
			do    func(w *world, ctx context.Context) error
		}{"chown", 1, func(w *world, ctx context.Context) error { return files.Chown(ctx, w.path("tree/a.txt"), 65534, 65534) }})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, c.roots, 64<<20)
			w.fixture()
			if c.roots > 1 { // a copy between roots takes files, directories and links
				os.Remove(w.roots[0] + "/tree/pipe")
				os.Chtimes(w.roots[0]+"/tree", old, old)
			}
			if c.name == "the catalog" {
				os.MkdirAll(w.roots[0]+"/out", 0o755)
				os.Chtimes(w.roots[0]+"/out", old, old)
				os.Chtimes(w.roots[0], old, old)
			}
			before := w.snapshot()
			w.step(c.name, func(ctx context.Context) error { return c.do(w, ctx) })
			after := w.snapshot()
			if diff(before, after) == "" {
				t.Fatal("the change changed nothing")
			}
			r := w.undo(0, journal.Select{Last: 1}, journal.ForUndo)
			if len(r.Skipped) > 0 || len(r.Restored) != 1 {
				t.Fatalf("undo: %s", r)
			}
			if d := diff(before, w.snapshot()); d != "" {
				t.Fatalf("after undo:\n%s\nundo said: %s", d, r)
			}
			if c.name == "the trash, outside the roots" {
				if ents, _ := os.ReadDir(filepath.Join(filepath.Dir(w.roots[0]), "trash")); len(ents) != 0 {
					t.Errorf("the trash still holds %d files after the undo", len(ents))
				}
			}
			r = w.undo(0, journal.Select{}, journal.ForRedo)
			if len(r.Skipped) > 0 || len(r.Restored) != 1 {
				t.Fatalf("redo: %s", r)
			}
			if d := diff(after, w.snapshot()); d != "" && c.name != "the trash, outside the roots" {
				t.Fatalf("after redo:\n%s\nredo said: %s", d, r)
			}
			r = w.undo(0, journal.Select{Last: 1}, journal.ForUndo)
			if d := diff(before, w.snapshot()); d != "" {
				t.Fatalf("after the second undo:\n%s\nundo said: %s", d, r)
			}
		})
	}
}
