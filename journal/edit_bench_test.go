//go:build unix

package journal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// BenchmarkSmallEdit times a 4 KiB file replaced, journaled as fs_edit's
// change is: to find where a small edit's journal time goes (compare
// BenchmarkSmallEditNoJournal).
func BenchmarkSmallEdit(b *testing.B) { benchEdit(b, true) }

// BenchmarkSmallEditNoJournal is the same replace with no journal.
func BenchmarkSmallEditNoJournal(b *testing.B) { benchEdit(b, false) }

func benchEdit(b *testing.B, journaled bool) {
	base := b.TempDir()
	root := filepath.Join(base, "r")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "f.txt"), make([]byte, 4096), 0o644)
	sb, _ := sandbox.New([]string{root})
	defer sb.Close()
	j := journal.New(journal.Config{Dir: filepath.Join(base, "state"), MaxSize: 1 << 30}, files.JournalOps{})
	p, _ := sb.Resolve(filepath.Join(root, "f.txt"))
	for i := 0; b.Loop(); i++ {
		content := fmt.Appendf(make([]byte, 0, 4096), "%04096d", i)
		if !journaled {
			p.WriteFile(content, 0o644)
			continue
		}
		st := j.Begin(journal.Actor{Tool: "fs_edit", Session: "s"}, sb.Roots())
		ctx := journal.With(context.Background(), st)
		if err := journal.Replaced(ctx, p); err != nil {
			b.Fatal(err)
		}
		p.WriteFile(content, 0o644)
		st.End(ctx)
	}
}

// BenchmarkCommandCreates times what the journal does for each file a
// shell command creates (the capture before the open, the file's final
// state at the step's end), 2,000 files to a step, as fs_bash's
// supervisor calls it: to find where a command's per-file cost goes.
func BenchmarkCommandCreates(b *testing.B) {
	base := b.TempDir()
	root := filepath.Join(base, "r")
	os.MkdirAll(root, 0o755)
	sb, _ := sandbox.New([]string{root})
	defer sb.Close()
	j := journal.New(journal.Config{Dir: filepath.Join(base, "state"), MaxSize: 1 << 30}, files.JournalOps{})
	var st *journal.Step
	var ctx context.Context
	for i := 0; b.Loop(); i++ {
		if i%2000 == 0 {
			if st != nil {
				st.End(ctx)
			}
			st = j.Begin(journal.Actor{Tool: "fs_bash", Command: "make files"}, sb.Roots())
			ctx = journal.With(context.Background(), st)
			os.Mkdir(filepath.Join(root, fmt.Sprint(i)), 0o755)
		}
		name := filepath.Join(root, fmt.Sprint(i-i%2000), fmt.Sprint("f", i))
		p, err := sb.Resolve(name)
		if err != nil {
			b.Fatal(err)
		}
		if err := journal.KeepTarget(ctx, p); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(name, nil, 0o644)
	}
	st.End(ctx)
}
