package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// useJournal turns the change journal on for the server's roots, refusing
// a journal directory inside one of them.
func useJournal(opts *options, roots []string, log *slog.Logger) error {
	if opts.journalOff {
		if opts.journalUnset != "" {
			log.Warn("changes are not journaled and cannot be undone", "why", opts.journalUnset)
		}
		journal.Use(nil)
		return nil
	}
	j := journal.New(opts.journal)
	if err := j.CheckRoots(roots); err != nil {
		if opts.journal.Strict {
			return err
		}
		log.Warn("changes in this directory are not journaled and cannot be undone", "why", err.Error())
	}
	journal.Use(j)
	return nil
}

// runJournal serves "fsmcp history DIR" and "fsmcp undo DIR": the user's
// side of the journal, without an agent.
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
		return usageErr(stderr, cmd, errors.New("name one DIR, the allowed directory whose changes to show or undo"))
	}
	sel := journal.Select{ID: *id, Session: *session, Last: *last}
	if *since != "" {
		d, err := parseDuration(*since)
		if err != nil {
			return usageErr(stderr, cmd, fmt.Errorf("--since: %v", err))
		}
		sel.Since = time.Now().Add(-d)
	}
	if cmd == "undo" && sel == (journal.Select{}) {
		return usageErr(stderr, cmd, errors.New("say what to undo: --last N, --session ID, --since DURATION or --id ID"))
	}
	o := &options{}
	if err := o.parseJournal("on", *size, *age, os.Getenv); err != nil {
		return usageErr(stderr, cmd, err)
	}
	dir, err := filepath.Abs(dirs[0])
	if err != nil {
		return usageErr(stderr, cmd, err)
	}
	sb, errs := sandbox.New([]string{dir})
	if len(sb.Roots()) == 0 {
		fmt.Fprintf(stderr, "fsmcp %s: %v\n", cmd, errors.Join(errs...))
		return exitUsage
	}
	defer sb.Close()
	j := journal.New(o.journal)
	if err := j.CheckRoots(sb.Roots()); err != nil {
		fmt.Fprintf(stderr, "fsmcp %s: %v\n", cmd, err)
		return exitUsage
	}
	journal.Use(j)
	st, err := j.Store(sb.Roots()[0])
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp %s: %v\n", cmd, err)
		return exitUsage
	}
	if *diff != "" {
		sel = journal.Select{ID: *diff}
		*verbose = true
	}
	es, err := st.Pick(sel)
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp %s: %v\n", cmd, err)
		return exitUsage
	}
	if cmd == "history" {
		if len(es) == 0 {
			fmt.Fprintf(stdout, "no changes journaled for %s\n", st.Root())
		}
		for _, e := range es {
			fmt.Fprintln(stdout, st.Line(e))
			if *verbose {
				fmt.Fprintln(stdout, st.Diff(e, sb))
			}
		}
		return exitOK
	}
	ctx := journal.WithActor(context.Background(), "fsmcp undo", "terminal")
	r := j.Undo(ctx, sb, st, es, *force)
	fmt.Fprintln(stdout, r.String())
	if len(r.Skipped) > 0 {
		return 1
	}
	return exitOK
}

func usageErr(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "fsmcp %s: %v\nUsage: fsmcp history DIR [-v] [--diff ID] [--last N] [--session ID] [--since 10m]\n       fsmcp undo DIR --last N | --session ID | --since 10m | --id ID [--force]\n", cmd, err)
	return exitUsage
}
