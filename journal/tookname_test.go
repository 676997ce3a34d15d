//go:build unix

package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// TestAFileReplacedWhileKeptIsKeptAsItIsThen: another process replaces
// a file by rename (as sed -i and editors save) between the journal's
// lstat of it and the read of its content. The journal takes its lstat
// again and keeps the new file whole, mode and content from the same
// inode, and the undo gives that back; only a name that keeps changing
// hands on every try is kept as nothing, and said. (Before, one
// replacement at that moment left the change "not undoable": two
// servers' commands on one file, TestTwoServersCommandsUndone, now and
// then.)
func TestAFileReplacedWhileKeptIsKeptAsItIsThen(t *testing.T) {
	for _, c := range []struct {
		name     string
		replaces int // how many tries find the name taken
		lost     bool
	}{{"once", 1, false}, {"on every try", 100, true}} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, 1, 0)
			f := filepath.Join(w.roots[0], "f.txt")
			write(t, f, "old\n", 0o644, time.Now().Add(-time.Hour))
			n := 0
			journal.SetBetweenLstatAndRead(t.Cleanup, func(p *sandbox.Path) {
				if p.Abs != f || n >= c.replaces {
					return
				}
				n++
				tmp := f + ".tmp"
				write(t, tmp, "replaced\n", 0o600, time.Now().Add(-time.Minute))
				if err := os.Rename(tmp, f); err != nil {
					t.Fatal(err)
				}
			})
			said := w.step("fs_bash", func(ctx context.Context) error {
				if err := journal.Keep(ctx, w.path("f.txt")); err != nil {
					return err
				}
				return os.WriteFile(f, []byte("the command's\n"), 0o644)
			})
			journal.SetBetweenLstatAndRead(t.Cleanup, func(*sandbox.Path) {})
			lost := strings.Contains(strings.Join(said, "\n"), "another file took its name")
			if lost != c.lost {
				t.Fatalf("the step said %q (want lost: %v)", said, c.lost)
			}
			if c.lost {
				return
			}
			rep := w.undo(0, journal.Select{Last: 1}, journal.ForUndo)
			if len(rep.Skipped) > 0 || len(rep.Restored) != 1 {
				t.Fatalf("undo: %s", rep)
			}
			fi, err := os.Stat(f)
			if got := readFile(t, f); err != nil || got != "replaced\n" || fi.Mode().Perm() != 0o600 {
				t.Errorf("after the undo f.txt is %q, mode %v (%v); want the replacement as kept, 0600", got, fi.Mode(), err)
			}
		})
	}
}
