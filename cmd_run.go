package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

const runUsage = `Usage: fsmcp run [--dir DIR] [--label LABEL] -- COMMAND [ARGS...]
Runs COMMAND with every change it (and what it starts) makes in DIR
journaled first, as one entry of DIR's history: fsmcp undo DIR --last 1
puts it back. DIR defaults to the enclosing git work tree, else the
working directory. stdin, stdout, stderr, signals and the exit status
pass through.
`

// runOpts are fsmcp run's settings.
type runOpts struct {
	dir     string
	label   string // the tool name history shows ("fsmcp run")
	host    string // the agent host whose command this is ("" for a person)
	session string // the host's session id, labelled in history
	argv    []string
	bgFd    int    // the background's supervisor: the listener's descriptor
	text    string // the command as history shows it (the background's)
	// stateHome, where set, is the XDG_STATE_HOME the journal is under
	// (a host's hook names it, whatever environment the host gives it).
	stateHome string
}

// parseRun reads fsmcp run's flags, up to "--" and the command.
func parseRun(args []string) (*runOpts, error) {
	fs := flag.NewFlagSet("fsmcp run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := &runOpts{}
	fs.StringVar(&o.dir, "dir", "", "")
	fs.StringVar(&o.label, "label", "fsmcp run", "")
	fs.StringVar(&o.host, "host", "", "")
	fs.StringVar(&o.session, "session", "", "")
	fs.IntVar(&o.bgFd, "background-fd", 0, "")
	fs.StringVar(&o.text, "text", "", "")
	fs.StringVar(&o.stateHome, "state-home", "", "")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.argv = fs.Args()
	if len(o.argv) == 0 && o.bgFd == 0 {
		return nil, errors.New("name the command to run, after --")
	}
	if o.text == "" {
		o.text = commandText(o.argv)
	}
	if o.session == "" {
		o.session = hostSession(o.host)
	}
	if o.dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		o.dir = workTree(wd)
	}
	d, err := filepath.Abs(sandbox.ExpandHome(o.dir))
	if err == nil {
		d, err = filepath.EvalSymlinks(d)
	}
	if err != nil {
		return nil, fmt.Errorf("--dir %s: %v", escape.Name(o.dir), sandbox.Cause(err))
	}
	o.dir = d
	return o, nil
}

// commandText is argv as history shows it: a shell's -c script as the
// script itself.
func commandText(argv []string) string {
	if len(argv) == 3 && argv[1] == "-c" {
		return argv[2]
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// hostSession is the session id a host gives the commands it runs.
func hostSession(host string) string {
	switch host {
	case "claude-code":
		return os.Getenv("CLAUDE_CODE_SESSION_ID")
	case "codex":
		if id := os.Getenv("CODEX_THREAD_ID"); id != "" {
			return id
		}
		return os.Getenv("CODEX_SESSION_ID")
	}
	return ""
}

// stateEnv is the environment as fsmcp reads it for its state
// directory: XDG_STATE_HOME is state, where a host's hook names it.
func stateEnv(state string) func(string) string {
	if state == "" {
		return os.Getenv
	}
	return func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return os.Getenv(k)
	}
}

// workTree is the git work tree dir lies in, or dir.
func workTree(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// runJournal is what fsmcp run journals through: DIR's journal and a
// sandbox holding DIR.
type runJournalSet struct {
	set *journal.Set
	sb  *sandbox.Sandbox
}

func (j *runJournalSet) close() {
	j.set.Close()
	j.sb.Close()
}

// openRunJournal opens DIR's journal with the bounds its server used,
// and labels sessions with the journal's own key.
func openRunJournal(o *runOpts) (*runJournalSet, error) {
	opts := &options{}
	if err := opts.parseJournal("on", "", "", stateEnv(o.stateHome)); err != nil {
		return nil, err
	}
	if opts.journalOff {
		return nil, errors.New(opts.journalUnset)
	}
	if b, a, ok := journal.ReadBound(opts.journal.Dir, o.dir); ok {
		if os.Getenv("FSMCP_JOURNAL_SIZE") == "" {
			opts.journal.MaxSize = b
		}
		if os.Getenv("FSMCP_JOURNAL_AGE") == "" {
			opts.journal.MaxAge = a
		}
	}
	sb, errs := sandbox.New([]string{o.dir})
	if len(sb.Roots()) == 0 {
		return nil, errors.Join(errs...)
	}
	set := journal.New(opts.journal, files.JournalOps{})
	if err := set.CheckRoots(sb.Roots()); err != nil {
		set.Close()
		sb.Close()
		return nil, err
	}
	if err := set.KeepLabels(); err != nil {
		set.Close()
		sb.Close()
		return nil, fmt.Errorf("the journal cannot be written: %v", err)
	}
	return &runJournalSet{set, sb}, nil
}
