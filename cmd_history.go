package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// journalCommands are the user's side of the change journal, run from a
// terminal without an agent.
var journalCommands = map[string]bool{"history": true, "undo": true, "redo": true}

const journalUsage = `Usage: fsmcp history DIR [-v] [--diff ID] [--last N] [--session LABEL] [--since 10m]
       fsmcp undo DIR --last N | --id ID | --session LABEL | --since 10m [--force]
       fsmcp redo DIR [--last N | --id ID] [--force]
`

// runJournal serves "fsmcp history|undo|redo DIR". DIR may be a
// directory fsmcp served or any directory in one (only its changes are
// shown or undone), or a directory above several it served.
func runJournal(args []string, stdout io.Writer, stderr *os.File) int {
	cmd := args[0]
	a, err := parseJournalArgs(cmd, args[1:])
	if err != nil {
		return usageErr(stderr, cmd, err)
	}
	dir, err := filepath.Abs(sandbox.ExpandHome(a.dir))
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp %s: %s: %v\n", cmd, escape.Name(a.dir), sandbox.Cause(err))
		return exitUsage
	}
	o := &options{}
	if err := o.parseJournal("on", a.size, a.age, os.Getenv); err != nil {
		return usageErr(stderr, cmd, err)
	}
	bases := journalsFor(o.journal.Dir, dir)
	if len(bases) == 0 {
		fmt.Fprintf(stdout, "no changes journaled for %s\n", escape.Name(dir))
		return exitOK
	}
	// The bounds the server used, unless given here.
	if b, age, ok := journal.ReadBound(o.journal.Dir, bases[0]); ok {
		if a.size == "" && os.Getenv("FSMCP_JOURNAL_SIZE") == "" {
			o.journal.MaxSize = b
		}
		if a.age == "" && os.Getenv("FSMCP_JOURNAL_AGE") == "" {
			o.journal.MaxAge = age
		}
	}
	j := journal.New(o.journal, files.JournalOps{})
	defer j.Close()
	es, err := pickEntries(j, cmd, dir, bases, a.sel)
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp %s: %v\n", cmd, err)
		return exitUsage
	}
	sb, errs := sandbox.New(rootsOf(bases, es))
	if len(sb.Roots()) == 0 {
		fmt.Fprintf(stderr, "fsmcp %s: %v\n", cmd, errors.Join(errs...))
		return exitUsage
	}
	defer sb.Close()
	if err := j.CheckRoots(sb.Roots()); err != nil {
		fmt.Fprintf(stderr, "fsmcp %s: %v\n", cmd, err)
		return exitUsage
	}
	if cmd == "history" {
		if len(es) == 0 {
			fmt.Fprintf(stdout, "no changes journaled for %s\n", escape.Name(dir))
		}
		for _, e := range es {
			fmt.Fprintln(stdout, e.Line())
			if a.verbose {
				fmt.Fprintln(stdout, e.Diff(sb))
			}
		}
		return exitOK
	}
	r := j.Undo(context.Background(), sb, es, a.force, journal.Actor{Tool: "fsmcp " + cmd, Session: "terminal", Client: "terminal"})
	fmt.Fprintln(stdout, r.String())
	if len(r.Skipped) > 0 || r.Partial > 0 {
		return exitError
	}
	return exitOK
}

// journalArgs are the arguments of fsmcp history|undo|redo.
type journalArgs struct {
	dir            string
	sel            journal.Select
	verbose, force bool
	size, age      string // --journal-size, --journal-age as given
}

// parseJournalArgs reads cmd's flags and its one DIR, in any order.
func parseJournalArgs(cmd string, args []string) (journalArgs, error) {
	fs := flag.NewFlagSet("fsmcp "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	last := fs.Int("last", 0, "")
	session := fs.String("session", "", "")
	since := fs.String("since", "", "")
	id := fs.String("id", "", "")
	diff := fs.String("diff", "", "")
	var a journalArgs
	fs.BoolVar(&a.verbose, "v", false, "")
	fs.BoolVar(&a.force, "force", false, "")
	fs.StringVar(&a.size, "journal-size", "", "")
	fs.StringVar(&a.age, "journal-age", "", "")
	var dirs []string
	for rest := args; ; rest = fs.Args()[1:] {
		if err := fs.Parse(rest); err != nil {
			return a, err
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
	}
	if len(dirs) != 1 {
		return a, errors.New("name one DIR, the directory whose changes to show or undo")
	}
	a.dir = dirs[0]
	if *last < 0 {
		return a, errors.New("--last must be a positive number")
	}
	a.sel = journal.Select{ID: *id, Session: *session, Last: *last}
	if *since != "" {
		d, err := parseDuration(*since)
		if err != nil {
			return a, fmt.Errorf("--since: %v", err)
		}
		a.sel.Since = time.Now().Add(-d)
	}
	switch {
	case cmd == "undo" && a.sel == (journal.Select{}):
		return a, errors.New("say what to undo: --last N, --id ID, --session LABEL or --since DURATION")
	case cmd == "redo" && a.sel == (journal.Select{}):
		a.sel.Last = 1
	}
	if *diff != "" {
		a.sel = journal.Select{ID: *diff}
		a.verbose = true
	}
	return a, nil
}

// pickEntries is what sel picks from the journals of bases, for cmd,
// within dir, newest first.
func pickEntries(j *journal.Set, cmd, dir string, bases []string, sel journal.Select) ([]*journal.Entry, error) {
	purpose := map[string]journal.Purpose{"history": journal.ForListing, "undo": journal.ForUndo, "redo": journal.ForRedo}[cmd]
	var es []*journal.Entry
	for _, b := range bases {
		st, err := j.Store(b)
		if err != nil {
			return nil, err
		}
		s := sel
		if rel, ok := sandbox.Within(b, dir); ok {
			s.Within = rel
		}
		got, err := st.Pick(s, purpose)
		if err != nil && sel.ID == "" {
			return nil, err
		}
		es = append(es, got...)
	}
	if sel.ID != "" && len(es) == 0 {
		return nil, fmt.Errorf("no change %q in the journal of %s", escape.Name(sel.ID), escape.Name(dir))
	}
	sort.SliceStable(es, func(i, k int) bool { return es[i].ID > es[k].ID })
	if sel.Last > 0 && len(es) > sel.Last {
		es = es[:sel.Last]
	}
	return es, nil
}

// journalsFor lists the DIRs whose journals concern dir: those that hold
// it (the nearest first) and those inside it.
func journalsFor(jdir, dir string) []string {
	var above, below []string
	for _, b := range journal.Bases(jdir) {
		if _, ok := sandbox.Within(b, dir); ok {
			above = append(above, b)
		} else if _, ok := sandbox.Within(dir, b); ok {
			below = append(below, b)
		}
	}
	sort.Slice(above, func(i, k int) bool { return len(above[i]) > len(above[k]) })
	return append(above, below...)
}

// rootsOf is every DIR the entries touch, for the undo's sandbox.
func rootsOf(bases []string, es []*journal.Entry) []string {
	out := append([]string{}, bases...)
	for _, e := range es {
		out = append(out, e.Bases()...)
	}
	return out
}

func usageErr(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "fsmcp %s: %v\n%s", cmd, err, journalUsage)
	return exitUsage
}
