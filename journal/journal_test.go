package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// setup returns a root, its sandbox, and an active journal outside it.
func setup(t testing.TB, cfg journal.Config) (string, *sandbox.Sandbox, *journal.Set) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(t.TempDir(), "journal")
	}
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	j := journal.New(cfg)
	journal.Use(j)
	t.Cleanup(func() { journal.Use(nil) })
	return root, sb, j
}

func resolve(t testing.TB, sb *sandbox.Sandbox, p string) *sandbox.Path {
	t.Helper()
	sp, err := sb.Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func store(t *testing.T, j *journal.Set, root string) *journal.Store {
	t.Helper()
	st, err := j.Store(root)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func want(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if string(b) != content {
		t.Errorf("%s holds %q, want %q", path, b, content)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != mode {
		t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), mode)
	}
}

func gone(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists, want it gone (%v)", path, err)
	}
}

// TestUndoRestoresEveryCoreChange: a write, a create, an edit, a delete,
// a move and a copy over a file, each undone, leave bytes and mode as
// they were.
func TestUndoRestoresEveryCoreChange(t *testing.T) {
	ctx := journal.WithActor(context.Background(), "test", "s1")
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, sb *sandbox.Sandbox, root string) error
		check  func(t *testing.T, root string)
	}{
		{"write", func(t *testing.T, sb *sandbox.Sandbox, root string) error {
			return files.Write(ctx, resolve(t, sb, root+"/a.txt"), []byte("new"))
		}, func(t *testing.T, root string) { want(t, root+"/a.txt", "old\n", 0o600) }},
		{"create", func(t *testing.T, sb *sandbox.Sandbox, root string) error {
			return files.Write(ctx, resolve(t, sb, root+"/new.txt"), []byte("new"))
		}, func(t *testing.T, root string) { gone(t, root+"/new.txt") }},
		{"modify", func(t *testing.T, sb *sandbox.Sandbox, root string) error {
			return files.Modify(ctx, resolve(t, sb, root+"/a.txt"), 0, func(old []byte) ([]byte, error) { return append(old, "more"...), nil })
		}, func(t *testing.T, root string) { want(t, root+"/a.txt", "old\n", 0o600) }},
		{"delete", func(t *testing.T, sb *sandbox.Sandbox, root string) error {
			return files.Delete(ctx, resolve(t, sb, root+"/a.txt"), false)
		}, func(t *testing.T, root string) { want(t, root+"/a.txt", "old\n", 0o600) }},
		{"move", func(t *testing.T, sb *sandbox.Sandbox, root string) error {
			return files.Move(ctx, resolve(t, sb, root+"/a.txt"), resolve(t, sb, root+"/b.txt"), true)
		}, func(t *testing.T, root string) {
			want(t, root+"/a.txt", "old\n", 0o600)
			want(t, root+"/b.txt", "bee\n", 0o640)
		}},
		{"copy over", func(t *testing.T, sb *sandbox.Sandbox, root string) error {
			return files.Copy(ctx, resolve(t, sb, root+"/a.txt"), resolve(t, sb, root+"/b.txt"), true)
		}, func(t *testing.T, root string) {
			want(t, root+"/a.txt", "old\n", 0o600)
			want(t, root+"/b.txt", "bee\n", 0o640)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, sb, j := setup(t, journal.Config{})
			os.WriteFile(root+"/a.txt", []byte("old\n"), 0o600)
			os.Chmod(root+"/a.txt", 0o600)
			os.WriteFile(root+"/b.txt", []byte("bee\n"), 0o640)
			os.Chmod(root+"/b.txt", 0o640)
			if err := tc.change(t, sb, root); err != nil {
				t.Fatal(err)
			}
			st := store(t, j, root)
			es, err := st.Pick(journal.Select{Session: "s1"})
			if err != nil || len(es) != 1 {
				t.Fatalf("journal holds %d entries of the session (%v), want 1", len(es), err)
			}
			if es[0].Tool != "test" {
				t.Errorf("entry names tool %q, want test", es[0].Tool)
			}
			r := j.Undo(ctx, sb, st, es, false)
			if len(r.Skipped) > 0 {
				t.Fatalf("undo skipped: %s", r)
			}
			tc.check(t, root)
		})
	}
}

// TestUndoRefusedWhenChangedSince: a file changed after the journaled
// change is named and left alone, unless forced.
func TestUndoRefusedWhenChangedSince(t *testing.T) {
	ctx := context.Background()
	root, sb, j := setup(t, journal.Config{})
	os.WriteFile(root+"/a.txt", []byte("one"), 0o644)
	if err := files.Write(ctx, resolve(t, sb, root+"/a.txt"), []byte("two")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(root+"/a.txt", []byte("someone else"), 0o644)
	st := store(t, j, root)
	es, _ := st.Pick(journal.Select{Last: 1})
	r := j.Undo(ctx, sb, st, es, false)
	if len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0], root+"/a.txt") || !strings.Contains(r.Skipped[0], "changed since") {
		t.Fatalf("undo report %q does not refuse naming the file", r)
	}
	want(t, root+"/a.txt", "someone else", 0o644)
	if r := j.Undo(ctx, sb, st, es, true); len(r.Skipped) > 0 {
		t.Fatalf("forced undo skipped: %s", r)
	}
	want(t, root+"/a.txt", "one", 0o644)
}

// TestUndoOfUndoRedoes: the undo is journaled; undoing it brings the
// change back.
func TestUndoOfUndoRedoes(t *testing.T) {
	ctx := context.Background()
	root, sb, j := setup(t, journal.Config{})
	os.WriteFile(root+"/a.txt", []byte("one"), 0o644)
	files.Write(ctx, resolve(t, sb, root+"/a.txt"), []byte("two"))
	st := store(t, j, root)
	for i, w := range []string{"one", "two", "one"} {
		es, _ := st.Pick(journal.Select{Last: 1})
		if r := j.Undo(ctx, sb, st, es, false); len(r.Skipped) > 0 {
			t.Fatalf("undo %d skipped: %s", i, r)
		}
		want(t, root+"/a.txt", w, 0o644)
	}
}

// TestJournalSurvivesRestart: a new Set over the same directory (fsmcp
// started again) undoes what the old one journaled.
func TestJournalSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "j")
	root, sb, _ := setup(t, journal.Config{Dir: dir})
	os.WriteFile(root+"/a.txt", []byte("one"), 0o644)
	files.Write(ctx, resolve(t, sb, root+"/a.txt"), []byte("two"))
	j2 := journal.New(journal.Config{Dir: dir})
	st := store(t, j2, root)
	es, _ := st.Pick(journal.Select{Last: 1})
	if r := j2.Undo(ctx, sb, st, es, false); len(r.Skipped) > 0 || len(r.Restored) != 1 {
		t.Fatalf("undo after restart: %s", r)
	}
	want(t, root+"/a.txt", "one", 0o644)
}

// TestJournalBounds: past --journal-size the oldest entries go first, and
// a change larger than the whole budget is made but marked not undoable.
func TestJournalBounds(t *testing.T) {
	ctx := context.Background()
	root, sb, j := setup(t, journal.Config{MaxSize: 8 << 10})
	for i := range 20 {
		os.WriteFile(root+"/a.txt", []byte(strings.Repeat(string(rune('a'+i)), 1000)+randomish(i)), 0o644)
		if err := files.Write(ctx, resolve(t, sb, root+"/a.txt"), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	st := store(t, j, root)
	es, _ := st.Pick(journal.Select{})
	if len(es) == 0 || len(es) >= 20 {
		t.Fatalf("journal holds %d of 20 entries, want the newest few", len(es))
	}
	if !strings.Contains(st.Line(es[0]), "a.txt") || es[0].NotUndoable != "" {
		t.Errorf("newest entry %q lost or not undoable", st.Line(es[0]))
	}
	if n := dirSize(t, st); n > 8<<10 {
		t.Errorf("journal is %d bytes, over its 8KiB bound", n)
	}
	big := strings.Repeat("z", 20<<10)
	os.WriteFile(root+"/big.txt", []byte(big), 0o644)
	if err := files.Write(ctx, resolve(t, sb, root+"/big.txt"), []byte("small")); err != nil {
		t.Fatalf("a change larger than the journal was not made: %v", err)
	}
	want(t, root+"/big.txt", "small", 0o644)
	es, _ = st.Pick(journal.Select{Last: 1})
	if es[0].Undoable() || !strings.Contains(es[0].NotUndoable, "larger than the whole journal") {
		t.Errorf("oversized change: not_undoable = %q", es[0].NotUndoable)
	}
	if r := j.Undo(ctx, sb, st, es, false); len(r.Restored) != 0 || len(r.Skipped) != 1 {
		t.Errorf("undo of an oversized change: %s", r)
	}
}

func randomish(i int) string { return strings.Repeat(string(rune('A'+i)), 200) }

func dirSize(t *testing.T, st *journal.Store) int64 {
	var n int64
	es, _ := st.Entries()
	_ = es
	filepath.Walk(st.Dir(), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Name() != "root" {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// TestJournalInsideRootRefused: a journal directory inside an allowed
// directory is refused, and nothing is changed through it.
func TestJournalInsideRootRefused(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "state", "journal")
	j := journal.New(journal.Config{Dir: dir, Strict: true})
	if err := j.CheckRoots([]string{root}); err == nil || !strings.Contains(err.Error(), "lies inside an allowed directory") {
		t.Fatalf("CheckRoots = %v, want a refusal", err)
	}
	if _, err := j.Store(root); err == nil {
		t.Fatal("a journal inside its root was opened")
	}
	sb, _ := sandbox.New([]string{root})
	defer sb.Close()
	os.WriteFile(root+"/a.txt", []byte("one"), 0o644)
	journal.Use(j)
	defer journal.Use(nil)
	if err := files.Write(context.Background(), resolve(t, sb, root+"/a.txt"), []byte("two")); err == nil {
		t.Error("with --journal on, a change in a root holding the journal was made")
	}
	want(t, root+"/a.txt", "one", 0o644)
	// By default that root goes unjournaled, and the journal is not made.
	journal.Use(journal.New(journal.Config{Dir: dir}))
	if err := files.Write(context.Background(), resolve(t, sb, root+"/a.txt"), []byte("two")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a journal was made inside the root: %v", err)
	}
}

// TestJournalAgeBound: entries older than --journal-age leave the journal
// when the next change is journaled; the newest stays.
func TestJournalAgeBound(t *testing.T) {
	ctx := context.Background()
	root, sb, j := setup(t, journal.Config{MaxAge: time.Nanosecond})
	for _, c := range []string{"one", "two", "three"} {
		if err := files.Write(ctx, resolve(t, sb, root+"/a.txt"), []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	es, _ := store(t, j, root).Pick(journal.Select{})
	if len(es) != 1 || es[0].After[0].Size != int64(len("three")) {
		t.Fatalf("journal holds %d entries, want only the newest", len(es))
	}
}

// TestJournalCleansTempsLeftByACrash: a temporary blob a killed fsmcp
// left (an hour old) is removed when the journal is next opened; a
// younger one, maybe another server's in progress, stays.
func TestJournalCleansTempsLeftByACrash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "j")
	root, sb, j := setup(t, journal.Config{Dir: dir})
	os.WriteFile(root+"/a.txt", []byte("one"), 0o644)
	files.Write(context.Background(), resolve(t, sb, root+"/a.txt"), []byte("two"))
	blobs := filepath.Join(store(t, j, root).Dir(), "blobs")
	old, young := filepath.Join(blobs, ".tmp-old"), filepath.Join(blobs, ".tmp-young")
	os.WriteFile(old, []byte("x"), 0o600)
	os.WriteFile(young, []byte("x"), 0o600)
	then := time.Now().Add(-2 * time.Hour)
	os.Chtimes(old, then, then)
	store(t, journal.New(journal.Config{Dir: dir}), root)
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("an hour-old temporary file was left")
	}
	if _, err := os.Stat(young); err != nil {
		t.Error("a fresh temporary file was removed")
	}
}
