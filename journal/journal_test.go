//go:build unix

package journal_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/catalog"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/internal/test/testenv"
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
	size  int64  // its size
}

func newWorld(t *testing.T, n int, size int64) *world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, dir: filepath.Join(base, "state"), size: size}
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

// kill ends w's fsmcp as a kill does (its steps left as they are, cut
// short) and starts the next one over the same journal.
func (w *world) kill() {
	w.j.Die()
	w.j = journal.New(journal.Config{Dir: w.dir, MaxSize: w.size}, files.JournalOps{})
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

// snapshot is every path below the roots with its state
// (testenv.TreeState), keyed "root index:path".
func (w *world) snapshot() map[string]string {
	out := map[string]string{}
	for i, r := range w.roots {
		for k, v := range testenv.TreeState(r, nil) {
			out[fmt.Sprintf("%d:%s", i, k)] = v
		}
	}
	return out
}

var diff = testenv.StateDiff

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

// du is the disk a directory tree takes, as du counts it.
func du(t *testing.T, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := os.Lstat(p); err == nil {
			n += fi.Sys().(*syscall.Stat_t).Blocks * 512
		}
		return nil
	})
	return n
}

// TestBoundIsTheDiskUsed: a thousand small edits under a 256 KiB bound
// keep the journal's directory within the bound as du counts it, and
// every change history still lists comes back when all are undone.
func TestBoundIsTheDiskUsed(t *testing.T) {
	const bound = 256 << 10
	w := newWorld(t, 1, bound)
	for i := range 10 {
		write(t, filepath.Join(w.roots[0], fmt.Sprintf("f%d.txt", i)), strings.Repeat("x", 300), 0o644, old)
	}
	for i := range 1000 {
		p := w.path(fmt.Sprintf("f%d.txt", i%10))
		w.step("fs_edit", func(ctx context.Context) error {
			return files.Modify(ctx, p, 0, func(b []byte) ([]byte, error) { return append(b, byte('a'+i%26)), nil })
		})
		if i%100 == 99 {
			if got := du(t, w.store(0).Dir()); got > bound {
				t.Fatalf("after %d edits the journal takes %d bytes, over the bound %d", i+1, got, bound)
			}
		}
	}
	if got, want := w.store(0).Usage(), du(t, w.store(0).Dir()); got != want {
		t.Errorf("the journal counts %d bytes, du %d", got, want)
	}
	es, err := w.store(0).Pick(journal.Select{}, journal.ForUndo)
	if err != nil || len(es) < 100 {
		t.Fatalf("history keeps %d changes of 1000 under %d bytes: %v", len(es), bound, err)
	}
	listed := len(es)
	r := w.j.Undo(context.Background(), w.sb, es, false, journal.Actor{Tool: "test undo"})
	if len(r.Skipped) > 0 || len(r.Restored) != listed || r.Partial > 0 {
		t.Fatalf("undo of the %d changes listed: %d restored, %d partial, skipped: %v", listed, len(r.Restored), r.Partial, r.Skipped[:min(3, len(r.Skipped))])
	}
	t.Logf("%d of 1000 edits kept in %d bytes (bound %d)", listed, du(t, w.store(0).Dir()), bound)
}

// TestOneBigChangeIsRefusedFirstAndEvictsNothing: a delete of a tree
// larger than half the bound is refused with a sentence saying so; the
// same call again deletes it, for good, without pushing older history
// out; history says it cannot be undone.
func TestOneBigChangeIsRefusedFirstAndEvictsNothing(t *testing.T) {
	const bound = 1 << 20
	w := newWorld(t, 1, bound)
	write(t, filepath.Join(w.roots[0], "small.txt"), "one", 0o644, old)
	w.step("fs_write", func(ctx context.Context) error { return files.Write(ctx, w.path("small.txt"), []byte("two")) })
	for i := range 8 {
		write(t, filepath.Join(w.roots[0], "big", fmt.Sprintf("%d.bin", i)), strings.Repeat(fmt.Sprint(i), 100<<10), 0o644, old)
	}
	st := w.j.Begin(journal.Actor{Tool: "fs_delete", Session: "secret-session-id"}, w.sb.Roots())
	ctx := journal.With(context.Background(), st)
	err := files.Delete(ctx, w.path("big"), true)
	st.End(ctx)
	var nk *journal.NotKeptError
	if !errorsAs(err, &nk) || !strings.Contains(err.Error(), "Call again with the same arguments") {
		t.Fatalf("the first delete of an 800 KiB tree under a 1 MiB journal: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.roots[0], "big", "7.bin")); err != nil {
		t.Fatal("the refused delete removed something")
	}
	notes := w.step("fs_delete", func(ctx context.Context) error { return files.Delete(ctx, w.path("big"), true) })
	if _, err := os.Stat(filepath.Join(w.roots[0], "big")); err == nil {
		t.Fatal("the confirmed delete did not delete")
	}
	if len(notes) == 0 || !strings.Contains(notes[0], "cannot be undone") {
		t.Errorf("the confirmed delete's answer does not say it is final: %q", notes)
	}
	es, _ := w.store(0).Pick(journal.Select{}, journal.ForListing)
	var lines []string
	for _, e := range es {
		lines = append(lines, e.Line())
	}
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, "fs_write") || !strings.Contains(all, "not undoable") {
		t.Fatalf("history after the big delete:\n%s", all)
	}
	// The last change cannot be undone, and the undo says so rather than
	// undoing the one before in its place.
	r := w.undo(0, journal.Select{Last: 1}, journal.ForUndo)
	if len(r.Restored) != 0 || len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0], "not undoable") {
		t.Fatalf("undo --last 1 after an unkept delete: %s", r)
	}
	r = w.undo(0, journal.Select{Last: 2}, journal.ForUndo)
	if len(r.Restored) != 1 || !strings.Contains(r.Restored[0], "small.txt") || readFile(t, filepath.Join(w.roots[0], "small.txt")) != "one" {
		t.Fatalf("undo --last 2 after an unkept delete: %s", r)
	}
}

func readFile(t *testing.T, name string) string {
	b, _ := os.ReadFile(name)
	return string(b)
}

func errorsAs(err error, target any) bool { return err != nil && errors.As(err, target) }

// TestUndoOfABigChangeIsRefusedUntilForced: an undo that would replace
// more than the journal keeps for one change (a 700 KiB file a change
// made out of a small one, under a 1 MiB journal) could not be redone:
// it is skipped with a sentence that says so and how to go ahead (no
// "call again": no repeated undo would confirm it), and forced it lands,
// its own entry marked not undoable.
func TestUndoOfABigChangeIsRefusedUntilForced(t *testing.T) {
	w := newWorld(t, 1, 1<<20)
	write(t, filepath.Join(w.roots[0], "f.txt"), "small", 0o644, old)
	// A shell command's change: it goes ahead, and kept the small file.
	st := w.j.Begin(journal.Actor{Tool: "fs_bash", Command: "head -c 700000 /dev/zero > f.txt"}, w.sb.Roots())
	ctx := journal.With(context.Background(), st)
	if err := journal.Keep(ctx, w.path("f.txt")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.roots[0], "f.txt"), strings.Repeat("x", 700<<10), 0o644, old)
	st.End(ctx)
	r := w.undo(0, journal.Select{Last: 1}, journal.ForUndo)
	if len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0], "the undo could not be redone. Pass force") || strings.Contains(r.Skipped[0], "Call again") {
		t.Fatalf("undo of a change to 700 KiB under a 1 MiB journal: %s", r)
	}
	if len(readFile(t, filepath.Join(w.roots[0], "f.txt"))) != 700<<10 {
		t.Fatal("the refused undo changed the file")
	}
	es, err := w.store(0).Pick(journal.Select{Last: 1}, journal.ForUndo)
	if err != nil {
		t.Fatal(err)
	}
	r = w.j.Undo(context.Background(), w.sb, es, true, journal.Actor{Tool: "test undo"})
	if len(r.Restored) != 1 || readFile(t, filepath.Join(w.roots[0], "f.txt")) != "small" {
		t.Fatalf("forced undo: %s", r)
	}
	es, _ = w.store(0).Pick(journal.Select{}, journal.ForListing)
	if len(es) == 0 || !strings.Contains(es[0].Line(), "not undoable") {
		t.Fatalf("the forced undo's entry does not say it cannot be redone: %v", es)
	}
}

// TestStepsAtTheSameTimeAreUndoneTogether: two steps that ran at the
// same time (two sessions' commands) each appended to one file, so
// neither's end state is where the other began. Undone together they
// give the file back as the first found it, whichever ended last and
// whichever touched it first (the step recorded first can touch it
// second: CI's load once let one server's sed make its temporary file
// before the other's loop reached f.txt, and the undo, newest first,
// ended on what the later toucher found); undone alone, the one whose
// end state the file no longer holds is refused.
func TestStepsAtTheSameTimeAreUndoneTogether(t *testing.T) {
	for _, c := range []struct{ olderEndsLast, otherFileFirst bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		t.Run(fmt.Sprintf("older ends last %v, b touches another file first %v", c.olderEndsLast, c.otherFileFirst), func(t *testing.T) {
			w := newWorld(t, 1, 64<<20)
			name, other := filepath.Join(w.roots[0], "f.txt"), filepath.Join(w.roots[0], "g.txt")
			write(t, name, "0", 0o644, old)
			write(t, other, "g", 0o644, old)
			appendTo := func(st *journal.Step, rel, s string) {
				t.Helper()
				if err := journal.Keep(journal.With(context.Background(), st), w.path(rel)); err != nil {
					t.Fatal(err)
				}
				abs := filepath.Join(w.roots[0], rel)
				write(t, abs, readFile(t, abs)+s, 0o644, time.Now())
			}
			a := w.j.Begin(journal.Actor{Tool: "fs_bash", Command: "a"}, w.sb.Roots())
			b := w.j.Begin(journal.Actor{Tool: "fs_bash", Command: "b"}, w.sb.Roots())
			if c.otherFileFirst {
				// b is recorded first (its own file), yet a takes f.txt first.
				appendTo(b, "g.txt", "B0")
			}
			appendTo(a, "f.txt", "A1")
			appendTo(b, "f.txt", "B1")
			appendTo(a, "f.txt", "A2")
			first, last := a, b
			if c.olderEndsLast {
				first, last = b, a
			}
			first.End(journal.With(context.Background(), first))
			appendTo(last, "f.txt", "X")
			last.End(journal.With(context.Background(), last))
			if c.olderEndsLast && !c.otherFileFirst {
				// b, the newer, no longer holds its end state: alone it is
				// refused, and the file is left as it is.
				r := w.undo(0, journal.Select{Last: 1}, journal.ForUndo)
				if len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0], "which ran at the same time and changed it too; not undone — undo them together") || readFile(t, name) != "0A1B1A2X" {
					t.Fatalf("undo of the newer alone: %s; f.txt %q", r, readFile(t, name))
				}
			}
			r := w.undo(0, journal.Select{Last: 2}, journal.ForUndo)
			if len(r.Restored) != 2 || readFile(t, name) != "0" || readFile(t, other) != "g" {
				t.Fatalf("undo of both: %s; f.txt %q, g.txt %q", r, readFile(t, name), readFile(t, other))
			}
		})
	}
}

// TestChangeThroughUnknownLinksIsSaid: a file with a hard link the
// journal did not see made (before fsmcp ran, or from outside the
// roots) changes under that name too; the step's answer says so, and a
// link it saw made (in an earlier step) is kept instead.
func TestChangeThroughUnknownLinksIsSaid(t *testing.T) {
	w := newWorld(t, 1, 64<<20)
	write(t, filepath.Join(w.roots[0], "f.txt"), "f", 0o644, old)
	write(t, filepath.Join(w.roots[0], "g.txt"), "g", 0o644, old)
	if err := os.Link(filepath.Join(w.roots[0], "f.txt"), filepath.Join(w.roots[0], "before")); err != nil {
		t.Fatal(err)
	}
	step := func(name string, fn func(ctx context.Context)) []string {
		st := w.j.Begin(journal.Actor{Tool: "fs_bash", Command: name}, w.sb.Roots())
		ctx := journal.With(context.Background(), st)
		fn(ctx)
		return st.End(ctx)
	}
	notes := step("echo >> f.txt", func(ctx context.Context) { journal.Keep(ctx, w.path("f.txt")) })
	if len(notes) != 1 || !strings.Contains(notes[0], "f.txt has 2 hard links, 1 of them not known to the journal") {
		t.Fatalf("a write through a file linked before: %q", notes)
	}
	step("ln g.txt h", func(ctx context.Context) {
		journal.Linked(ctx, w.path("g.txt"), w.path("h"))
		journal.Keep(ctx, w.path("h"))
		if err := os.Link(filepath.Join(w.roots[0], "g.txt"), filepath.Join(w.roots[0], "h")); err != nil {
			t.Fatal(err)
		}
	})
	notes = step("chmod 600 h", func(ctx context.Context) { journal.Meta(ctx, w.path("h")) })
	if len(notes) != 0 {
		t.Fatalf("a chmod through a link made in an earlier step: %q", notes)
	}
	es, _ := w.store(0).Pick(journal.Select{Last: 1}, journal.ForUndo)
	if len(es) != 1 || !strings.Contains(es[0].Line(), "g.txt") {
		t.Fatalf("the chmod through h did not keep g.txt: %v", es[0].Line())
	}
}

// TestLinksAnEarlierProcessSawAreKept: a hard link made under one fsmcp
// (its op names the file it links) is known to the next one, from the
// history: a write through either name there keeps the other too, and
// the undo of both steps gives both names back.
func TestLinksAnEarlierProcessSawAreKept(t *testing.T) {
	for _, through := range []string{"f.txt", "b"} {
		t.Run(through, func(t *testing.T) {
			w := newWorld(t, 1, 64<<20)
			name := filepath.Join(w.roots[0], "f.txt")
			write(t, name, "f", 0o644, old)
			st := w.j.Begin(journal.Actor{Tool: "fs_bash", Command: "ln f.txt b"}, w.sb.Roots())
			ctx := journal.With(context.Background(), st)
			journal.Linked(ctx, w.path("f.txt"), w.path("b"))
			journal.Keep(ctx, w.path("b"))
			if err := os.Link(name, filepath.Join(w.roots[0], "b")); err != nil {
				t.Fatal(err)
			}
			st.End(ctx)
			// The next fsmcp: a Set of its own over the same journal.
			w.j = journal.New(journal.Config{Dir: w.dir, MaxSize: 64 << 20}, files.JournalOps{})
			st = w.j.Begin(journal.Actor{Tool: "fs_bash", Command: "echo x >> " + through}, w.sb.Roots())
			ctx = journal.With(context.Background(), st)
			fi, err := os.Lstat(filepath.Join(w.roots[0], through)) // as the shell's tracer hands it
			journal.KeepSeen(ctx, w.path(through), fi, err)
			f, err := os.OpenFile(filepath.Join(w.roots[0], through), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("x")
			f.Close()
			if notes := st.End(ctx); len(notes) != 0 {
				t.Fatalf("the write said: %q", notes)
			}
			r := w.undo(0, journal.Select{Last: 2}, journal.ForUndo)
			if len(r.Restored) != 2 || readFile(t, name) != "f" {
				t.Fatalf("undo of both: %s; f.txt %q", r, readFile(t, name))
			}
			if _, err := os.Lstat(filepath.Join(w.roots[0], "b")); !os.IsNotExist(err) {
				t.Fatalf("b is still there: %v", err)
			}
		})
	}
}
