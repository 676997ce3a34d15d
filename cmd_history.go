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
	fs := flag.NewFlagSet("fsmcp "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	last := fs.Int("last", 0, "")
	session := fs.String("session", "", "")
	since := fs.String("since", "", "")
	id := fs.String("id", "", "")
	diff := fs.String("diff", "", "")
	verbose := fs.Bool("v", false, "")
	force := fs.Bool("force", false, "")
	size := fs.String("journal-size", "", "")
	age := fs.String("journal-age", "", "")
	var dirs []string
	rest := args[1:]
	for {
		if err := fs.Parse(rest); err != nil {
			return usageErr(stderr, cmd, err)
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(dirs) != 1 {
		return usageErr(stderr, cmd, errors.New("name one DIR, the directory whose changes to show or undo"))
	}
	if *last < 0 {
		return usageErr(stderr, cmd, errors.New("--last must be a positive number"))
	}
	sel := journal.Select{ID: *id, Session: *session, Last: *last}
	if *since != "" {
		d, err := parseDuration(*since)
		if err != nil {
			return usageErr(stderr, cmd, fmt.Errorf("--since: %v", err))
		}
		sel.Since = time.Now().Add(-d)
	}
	switch {
	case cmd == "undo" && sel == (journal.Select{}):
		return usageErr(stderr, cmd, errors.New("say what to undo: --last N, --id ID, --session LABEL or --since DURATION"))
	case cmd == "redo" && sel == (journal.Select{}):
		sel.Last = 1
	}
	if *diff != "" {
		sel = journal.Select{ID: *diff}
		*verbose = true
	}
	dir, err := filepath.Abs(sandbox.ExpandHome(dirs[0]))
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp %s: %s: %v\n", cmd, escape.Name(dirs[0]), sandbox.Cause(err))
		return exitUsage
	}
	o := &options{}
	if err := o.parseJournal("on", *size, *age, os.Getenv); err != nil {
		return usageErr(stderr, cmd, err)
	}
	bases := journalsFor(o.journal.Dir, dir)
	if len(bases) == 0 {
		fmt.Fprintf(stdout, "no changes journaled for %s\n", escape.Name(dir))
		return exitOK
	}
	// The bounds the server used, unless given here.
	if b, a, ok := journal.ReadBound(o.journal.Dir, bases[0]); ok {
		if *size == "" && os.Getenv("FSMCP_JOURNAL_SIZE") == "" {
			o.journal.MaxSize = b
		}
		if *age == "" && os.Getenv("FSMCP_JOURNAL_AGE") == "" {
			o.journal.MaxAge = a
		}
	}
	j := journal.New(o.journal, files.JournalOps{})
	defer j.Close()
	purpose := map[string]journal.Purpose{"history": journal.ForListing, "undo": journal.ForUndo, "redo": journal.ForRedo}[cmd]
	var es []*journal.Entry
	for _, b := range bases {
		st, err := j.Store(b)
		if err != nil {
			fmt.Fprintf(stderr, "fsmcp %s: %v\n", cmd, err)
			return exitUsage
		}
		s := sel
		if rel, ok := sandbox.Within(b, dir); ok {
			s.Within = rel
		}
		got, err := st.Pick(s, purpose)
		if err != nil && sel.ID == "" {
			fmt.Fprintf(stderr, "fsmcp %s: %v\n", cmd, err)
			return exitUsage
		}
		es = append(es, got...)
	}
	if sel.ID != "" && len(es) == 0 {
		fmt.Fprintf(stderr, "fsmcp %s: no change %q in the journal of %s\n", cmd, escape.Name(sel.ID), escape.Name(dir))
		return exitUsage
	}
	sort.SliceStable(es, func(i, k int) bool { return es[i].ID > es[k].ID })
	if sel.Last > 0 && len(es) > sel.Last {
		es = es[:sel.Last]
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
			if *verbose {
				fmt.Fprintln(stdout, e.Diff(sb))
			}
		}
		return exitOK
	}
	r := j.Undo(context.Background(), sb, es, *force, journal.Actor{Tool: "fsmcp " + cmd, Session: "terminal", Client: "terminal"})
	fmt.Fprintln(stdout, r.String())
	if len(r.Skipped) > 0 || r.Partial > 0 {
		return exitError
	}
	return exitOK
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
