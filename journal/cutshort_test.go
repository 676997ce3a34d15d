//go:build unix

package journal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/journal"
)

// TestTreeCopiedOverATreeComesBack: fs_copy of a tree over another
// swaps the new tree in and sets the old one aside in the journal. The
// undo takes the new tree away and puts the old one back: after the
// step ended, and after fsmcp was killed between the swap and the
// step's end (the entry is then recovered as cut short, what it left
// taken as found). Both used to leave the new tree in place ("holds
// files the change did not make"; the second was seen under
// GOMAXPROCS=8 in TestReplacedKeepsOldOrNewWhenKilled), and a copy of
// a tree whose directories had the old one's times was not journaled
// at all (taken for no change).
func TestTreeCopiedOverATreeComesBack(t *testing.T) {
	for _, move := range []bool{false, true} {
		for _, killed := range []bool{false, true} {
			for _, sameTimes := range []bool{false, true} {
				t.Run(fmt.Sprintf("move=%v/killed=%v/sameTimes=%v", move, killed, sameTimes), func(t *testing.T) {
					treeOverTree(t, move, killed, sameTimes)
				})
			}
		}
	}
}

// treeOverTree copies src over dst (or moves it there from another
// root), then undoes it, after the step ended or killed before.
// sameTimes gives both trees' directories one time, as two trees
// unpacked from one archive have (the entry was taken for no change).
func treeOverTree(t *testing.T, move, killed, sameTimes bool) {
	n := 1
	if move {
		n = 2 // a move between roots copies too
	}
	w := newWorld(t, n, 1<<30)
	r, from := w.roots[0], w.roots[n-1]
	writeTree(t, filepath.Join(r, "dst"), "old\n")
	writeTree(t, filepath.Join(from, "src"), "new\n")
	if sameTimes {
		for _, d := range []string{"dst", "dst/d0", "dst/d1", "dst/d2"} {
			os.Chtimes(filepath.Join(r, d), old, old)
			os.Chtimes(filepath.Join(from, "src", strings.TrimPrefix(d, "dst")), old, old)
		}
	}
	before := w.snapshot()
	src, err := w.sb.Resolve(filepath.Join(from, "src"))
	if err != nil {
		t.Fatal(err)
	}
	st := w.j.Begin(journal.Actor{Tool: "fs_copy"}, w.sb.Roots())
	ctx := journal.With(context.Background(), st)
	if move {
		err = files.Move(ctx, src, w.path("dst"), true)
	} else {
		err = files.Copy(ctx, src, w.path("dst"), true)
	}
	if err != nil {
		t.Fatal(err)
	}
	if killed {
		w.kill() // the step never ends
	} else {
		st.End(ctx)
	}
	if got, err := os.ReadFile(filepath.Join(r, "dst/d0/f0")); err != nil || string(got) != "new\n" {
		t.Fatalf("the copy: %q, %v", got, err)
	}
	rep := w.undo(0, journal.Select{Last: 1}, journal.ForUndo)
	if d := diff(before, w.snapshot()); d != "" {
		t.Fatalf("after the undo:\n%s\nundo said: %s", d, rep)
	}
}

// TestTreeSwappedOutBeforeItWasKeptComesBack: fsmcp killed in the
// instant between the exchange and the old tree's move into the journal
// left the old tree under the hidden name the new one was built at; the
// forced undo finds it there (by its device and inode) and puts it back,
// the new tree going first, and leaves no hidden directory.
func TestTreeSwappedOutBeforeItWasKeptComesBack(t *testing.T) {
	w := newWorld(t, 1, 1<<30)
	r := w.roots[0]
	writeTree(t, filepath.Join(r, "dst"), "old\n")
	before := w.snapshot()
	st := w.j.Begin(journal.Actor{Tool: "fs_copy"}, w.sb.Roots())
	ctx := journal.With(context.Background(), st)
	dst := w.path("dst")
	if _, err := journal.Swapping(ctx, dst); err != nil {
		t.Fatal(err)
	}
	tmp := dst.TempSibling() // as files.Copy builds the new tree
	writeTree(t, tmp.Abs, "new\n")
	if err := journal.MadeTree(ctx, dst); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Exchange(dst); err != nil {
		t.Skipf("SKIPPED: no exchange here (%v)", err)
	}
	w.kill() // before done: the old tree is at tmp's name
	es, err := w.store(0).Pick(journal.Select{Last: 1}, journal.ForUndo)
	if err != nil {
		t.Fatal(err)
	}
	rep := w.j.Undo(context.Background(), w.sb, es, true, journal.Actor{Tool: "test undo"})
	if d := diff(before, w.snapshot()); d != "" {
		t.Fatalf("after the undo:\n%s\nundo said: %s", d, rep)
	}
}

// writeTree writes 20 files of content in three directories below dir,
// all with the fixture's old time.
func writeTree(t *testing.T, dir, content string) {
	t.Helper()
	for i := range 20 {
		write(t, filepath.Join(dir, fmt.Sprintf("d%d/f%d", i%3, i)), content, 0o644, old)
	}
}
