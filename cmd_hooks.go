package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/fsmcp/fsmcp/hooks"
	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

const hooksUsage = `Usage: fsmcp hooks install|uninstall|status HOST [--project|--user]
HOST is claude-code. --project (the default) writes the project's own
uncommitted settings (Claude Code: .claude/settings.local.json in the
enclosing git work tree, else the working directory); --user the user's.
From then on every command of the host's shell tool and every edit of
its own file tools is journaled: fsmcp history DIR, fsmcp undo DIR.
`

// runHooks serves "fsmcp hooks install|uninstall|status HOST".
func runHooks(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stderr, hooksUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return exitOK
		}
		return exitUsage
	}
	verb, host := args[0], args[1]
	fs := flag.NewFlagSet("fsmcp hooks", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	project := fs.Bool("project", false, "")
	user := fs.Bool("user", false, "")
	if err := fs.Parse(args[2:]); err != nil || fs.NArg() > 0 || *project && *user {
		fmt.Fprintf(stderr, "fsmcp hooks: %s\n%s", orMsg(err, "give --project or --user, not both"), hooksUsage)
		return exitUsage
	}
	p, err := hookPlan(host, !*user)
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp hooks %s: %v\n", verb, err)
		return exitError
	}
	switch verb {
	case "install":
		path, err := hooks.Install(p)
		if err != nil {
			fmt.Fprintf(stderr, "fsmcp hooks install: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "installed fsmcp's hooks for %s in %s\n", host, escape.Name(path))
	case "uninstall":
		path, found, err := hooks.Uninstall(p)
		if err != nil {
			fmt.Fprintf(stderr, "fsmcp hooks uninstall: %v\n", err)
			return exitError
		}
		if !found {
			fmt.Fprintf(stdout, "no fsmcp hooks for %s in %s\n", host, escape.Name(path))
		} else {
			fmt.Fprintf(stdout, "removed fsmcp's hooks for %s from %s\n", host, escape.Name(path))
		}
	case "status":
		s, err := hooks.Status(p)
		if err != nil {
			fmt.Fprintf(stderr, "fsmcp hooks status: %v\n", err)
			return exitError
		}
		fmt.Fprintln(stdout, s)
	default:
		fmt.Fprintf(stderr, "fsmcp hooks: unknown %q\n%s", verb, hooksUsage)
		return exitUsage
	}
	return exitOK
}

func orMsg(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

// hookPlan is an install's plan: the project (the working directory's
// work tree) or the user's settings, and this binary.
func hookPlan(host string, project bool) (hooks.Plan, error) {
	p := hooks.Plan{Host: host, Getenv: os.Getenv}
	var err error
	if p.Home, err = os.UserHomeDir(); err != nil {
		return p, err
	}
	if p.Binary, err = os.Executable(); err == nil {
		p.Binary, err = filepath.EvalSymlinks(p.Binary)
	}
	if err != nil {
		return p, fmt.Errorf("cannot tell where this fsmcp is: %v", err)
	}
	dir, err := journal.DefaultDir(os.Getenv)
	if err != nil {
		return p, err
	}
	p.State = filepath.Dir(dir)
	if project {
		wd, err := os.Getwd()
		if err != nil {
			return p, err
		}
		p.Project = workTree(wd)
	}
	return p, nil
}

// hookInput is what a host's hook is given on stdin (the fields fsmcp
// reads).
type hookInput struct {
	Session   string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Event     string `json:"hook_event_name"`
	Tool      string `json:"tool_name"`
	ToolUseID string `json:"tool_use_id"`
	Input     struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	} `json:"tool_input"`
}

// maxHookInput bounds what a hook reads (a Write's content comes too).
const maxHookInput = 256 << 20

// runHook serves "fsmcp hook HOST [--dir DIR] [--shell SCRIPT]": a host
// runs it around its own tools' calls. It never blocks the call: where
// it cannot journal, it says so in one line the host shows.
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, hooksUsage)
		return exitUsage
	}
	host := args[0]
	fs := flag.NewFlagSet("fsmcp hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", "", "")
	asShell := fs.Bool("shell", false, "")
	if err := fs.Parse(args[1:]); err != nil {
		fmt.Fprintf(stderr, "fsmcp hook: %v\n", err)
		return exitUsage
	}
	if *asShell {
		return runHostShell(host, *dir, fs.Args(), stderr)
	}
	var in hookInput
	if err := json.NewDecoder(io.LimitReader(stdin, maxHookInput)).Decode(&in); err != nil {
		return hookSays(stdout, host, "not journaled: the hook's input is not JSON: "+err.Error())
	}
	if why := journalHostCall(host, *dir, in); why != "" {
		return hookSays(stdout, host, why)
	}
	return exitOK
}

// hookSays answers the host with one line it shows the user (Claude
// Code: a systemMessage), letting the call go on.
func hookSays(stdout io.Writer, host, msg string) int {
	json.NewEncoder(stdout).Encode(map[string]any{"systemMessage": "fsmcp: " + msg})
	return exitOK
}

// journalHostCall journals one host call through its hooks: before an
// edit tool's call, what the file holds; after it (succeeded or failed),
// what it left. It returns why it could not, or "".
func journalHostCall(host, dir string, in hookInput) string {
	file := in.Input.FilePath
	if file == "" {
		file = in.Input.NotebookPath
	}
	if in.Cwd == "" || in.ToolUseID == "" {
		return ""
	}
	if dir == "" {
		dir = workTree(in.Cwd)
	}
	o := &runOpts{dir: dir}
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "not journaled: " + escape.Name(dir) + ": " + sandbox.Cause(err).Error()
	}
	o.dir = d
	j, err := openRunJournal(o)
	if err != nil {
		return "not journaled: " + err.Error()
	}
	defer j.close()
	label := j.set.Label(in.Session, host)
	call := host + "\x00" + in.Session + "\x00" + in.ToolUseID
	switch in.Event {
	case "PreToolUse", "BeforeTool":
		j.set.EndStaleHooks(o.dir, label, call)
		if file == "" {
			return ""
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(in.Cwd, file)
		}
		p, err := j.sb.Resolve(file)
		if err != nil {
			return "" // outside DIR: not this journal's
		}
		st := j.set.BeginHook(journal.Actor{Tool: in.Tool, Session: in.Session, Client: host}, j.sb.Roots(), call)
		ctx := journal.With(context.Background(), st)
		if err := journal.Keep(ctx, p); err != nil {
			st.Leave()
			return "not journaled: " + err.Error()
		}
		if notes := st.Leave(); len(notes) > 0 {
			return strings.Join(notes, " ")
		}
	default:
		j.set.EndHook(o.dir, call)
	}
	return ""
}

// claudeBashScript matches the script Claude Code runs for a command of
// its Bash tool: the command is eval'd, then the working directory is
// written where Claude Code reads it back.
var claudeBashScript = regexp.MustCompile(`(?s)&& eval '(.*)' < /dev/null && pwd -P >\| \S+-cwd$`)

// runHostShell runs a host's shell script as its shell would: a command
// of the host's shell tool journaled (fsmcp run), anything else the host
// runs through the same prefix (its hooks, MCP servers) as it is.
func runHostShell(host, dir string, args []string, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "fsmcp hook %s --shell: want the script as one argument, got %d\n", host, len(args))
		return exitUsage
	}
	script := args[0]
	sh := os.Getenv("SHELL")
	if sh == "" {
		sh = "/bin/sh"
	}
	m := claudeBashScript.FindStringSubmatch(script)
	if m == nil {
		return execShell(sh, script, stderr)
	}
	run := []string{"--host", host, "--label", "Bash", "--text", strings.ReplaceAll(m[1], `'\''`, `'`)}
	if dir != "" {
		run = append(run, "--dir", dir)
	}
	return runCommand(append(run, "--", sh, "-c", script), stderr)
}
