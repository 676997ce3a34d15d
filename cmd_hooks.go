package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/hooks"
	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

const hooksUsage = `Usage: fsmcp hooks install|uninstall|status HOST [--project|--user]
HOST is claude-code, codex or gemini. --project (the default) writes the
project's own settings (in the enclosing git work tree, else the working
directory: Claude Code's .claude/settings.local.json, Codex's .codex/,
Gemini CLI's .gemini/settings.json); --user the user's. From then on the
host's own file edits and shell commands (Gemini CLI's through a --user
install) are journaled: fsmcp history DIR, fsmcp undo DIR.
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
		path, notes, err := hooks.Install(p)
		if err != nil {
			fmt.Fprintf(stderr, "fsmcp hooks install: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "installed fsmcp's hooks for %s in %s\n", host, escape.Name(path))
		for _, n := range notes {
			fmt.Fprintf(stdout, "note: %s\n", n)
		}
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
		Command      string `json:"command"` // Codex's apply_patch: the patch
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
	state := fs.String("state-home", "", "")
	bash := fs.String("bash", "", "")
	login := fs.Bool("login", false, "")
	if err := fs.Parse(args[1:]); err != nil {
		fmt.Fprintf(stderr, "fsmcp hook: %v\n", err)
		return exitUsage
	}
	if *asShell {
		return runHostShell(host, *dir, fs.Args(), stderr)
	}
	if *bash != "" {
		return runHostBash(host, *dir, *state, *bash, *login, fs.Args(), stderr)
	}
	var in hookInput
	if err := json.NewDecoder(io.LimitReader(stdin, maxHookInput)).Decode(&in); err != nil {
		return hookSays(stdout, host, "not journaled: the hook's input is not JSON: "+err.Error())
	}
	if why := journalHostCall(host, *dir, *state, in); why != "" {
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
// edit tool's call, what its files hold; after it (succeeded or failed),
// what it left. It returns why it could not, or "".
func journalHostCall(host, dir, state string, in hookInput) string {
	if host == "gemini" && in.Tool == "run_shell_command" {
		if in.Event == "BeforeTool" {
			return geminiShell(state, in)
		}
		// After the call: the session's id, left for a command Gemini
		// CLI then blocked (its $(...) refusal), goes.
		if dir, err := stateDir(state); err == nil {
			os.Remove(geminiSessionFile(dir, in.Input.Command))
		}
		return ""
	}
	var files []string
	switch {
	case in.Input.FilePath != "":
		files = []string{in.Input.FilePath}
	case in.Input.NotebookPath != "":
		files = []string{in.Input.NotebookPath}
	case host == "codex" && in.Tool == "apply_patch":
		files = patchFiles(in.Input.Command)
	}
	call := in.ToolUseID
	if call == "" && host == "gemini" && len(files) == 1 {
		// Gemini CLI gives its hooks no call id; its file tools run one
		// at a time, so the tool and its file name the call.
		f := files[0]
		if !filepath.IsAbs(f) {
			f = filepath.Join(in.Cwd, f)
		}
		call = in.Tool + "\x00" + f
	}
	if in.Cwd == "" || call == "" {
		return ""
	}
	if dir == "" {
		dir = workTree(in.Cwd)
	}
	o := &runOpts{dir: dir, stateHome: state}
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
	call = host + "\x00" + in.Session + "\x00" + call
	switch in.Event {
	case "PreToolUse", "BeforeTool":
		j.set.EndStaleHooks(o.dir, label, call)
		// The host names files absolute or from its working directory;
		// one outside DIR is not this journal's.
		var kept []*sandbox.Path
		for _, f := range files {
			if !filepath.IsAbs(f) {
				f = filepath.Join(in.Cwd, f)
			}
			if p, err := toolkit.Absolute.Resolve(j.sb, f); err == nil {
				kept = append(kept, p)
			}
		}
		if len(kept) == 0 || j.set.HookBegun(o.dir, call) {
			return "" // outside DIR: not this journal's; or begun by the host's other hook of fsmcp's
		}
		st := j.set.BeginHook(journal.Actor{Tool: in.Tool, Session: in.Session, Client: host}, j.sb.Roots(), call)
		ctx := journal.With(context.Background(), st)
		for _, p := range kept {
			if err := journal.Keep(ctx, p); err != nil {
				st.Leave()
				return "not journaled: " + err.Error()
			}
		}
		if notes := st.Leave(); len(notes) > 0 {
			return strings.Join(notes, " ")
		}
	default:
		j.set.EndHook(o.dir, call)
	}
	return ""
}

// geminiShell is what the hook before a Gemini CLI shell command says:
// nothing where the command's bash gets fsmcp's BASH_ENV (the hook's
// environment is the command's, sanitized alike), leaving the session's
// id for the command's journal; else that it is not journaled.
func geminiShell(state string, in hookInput) string {
	dir, err := stateDir(state)
	if err != nil || os.Getenv("BASH_ENV") != filepath.Join(dir, "hooks", "gemini-bash-env") {
		return "not journaled: Gemini CLI gave this command no BASH_ENV of fsmcp's (fsmcp hooks install gemini --user sets it in ~/.gemini/.env, which a project's own .env, an untrusted folder or CI keep out)"
	}
	if in.Session != "" {
		p := geminiSessionFile(dir, in.Input.Command)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(in.Session), 0o600)
		sweepSessionFiles(filepath.Dir(p))
	}
	return ""
}

// sessionFileAge is how long the session's id waits for its command: a
// command a rule then refused never takes it (Gemini CLI calls no hook
// after a call its policy denies), and the user may take long to approve
// one.
const sessionFileAge = 15 * time.Minute

// sweepSessionFiles takes out the session files older than that.
func sweepSessionFiles(dir string) {
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > sessionFileAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// geminiSessionFile is where the hook before a Gemini CLI shell command
// leaves the session's id for that command's journal, by the command.
func geminiSessionFile(stateDir, command string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(command)))
	return filepath.Join(stateDir, "hooks", "gemini-sessions", hex.EncodeToString(sum[:16]))
}

// stateDir is fsmcp's state directory: under state, where a hook names
// it, else where the journal's default is.
func stateDir(state string) (string, error) {
	d, err := journal.DefaultDir(stateEnv(state))
	return filepath.Dir(d), err
}

// patchFiles are the files a Codex patch names: each it adds, updates,
// deletes, or moves one to.
func patchFiles(patch string) []string {
	var out []string
	for _, l := range strings.Split(patch, "\n") {
		l = strings.TrimRight(l, "\r")
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(l, p); ok && strings.TrimSpace(f) != "" {
				out = append(out, strings.TrimSpace(f))
			}
		}
	}
	return out
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

// codexSnapshotExec is the last line of the script Codex runs a command
// through when it has a shell snapshot: the command, as its shell's -c
// script.
var codexSnapshotExec = regexp.MustCompile(`(?s)\nexec ('[^'\n]*') -l?c (.*?)\n?$`)

// hostTool is the name a host gives its shell tool, which history shows.
var hostTool = map[string]string{"codex": "exec_command", "claude-code": "Bash", "gemini": "run_shell_command"}

// geminiShellScript is the -c script Gemini CLI runs a command as: the
// command in a subshell that collects what it leaves running.
var geminiShellScript = regexp.MustCompile(`(?s)\n\(\n  trap 'jobs -p > "\$_bgpids_file"' EXIT\n(.*)\n\)\n__code=\$\?\nexit \$__code$`)

// runHostBash runs a host's shell command journaled: the host's bash read
// fsmcp's BASH_ENV script, which hands the -c script it was given to
// this, to run again under fsmcp run (the same shell, $0 and arguments;
// a login shell as one). History shows the model's command.
func runHostBash(host, dir, state, script string, login bool, args []string, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintf(stderr, "fsmcp hook %s --bash: want the shell and its $0 after --\n", host)
		return exitUsage
	}
	text, session := script, ""
	if m := codexSnapshotExec.FindStringSubmatch(script); host == "codex" && m != nil && strings.Contains(script, "__CODEX_SNAPSHOT_") {
		if w := shellWords(m[2]); len(w) == 1 {
			text = w[0]
		}
	}
	if m := geminiShellScript.FindStringSubmatch(script); host == "gemini" && m != nil {
		text = m[1]
		if dir, err := stateDir(state); err == nil {
			p := geminiSessionFile(dir, text)
			if b, err := os.ReadFile(p); err == nil && len(b) < 4096 {
				session = string(b)
				os.Remove(p)
			}
		}
	}
	flag := "-c"
	if login {
		flag = "-lc"
	}
	run := []string{"--host", host, "--label", hostTool[host], "--text", text}
	if dir != "" {
		run = append(run, "--dir", dir)
	}
	if state != "" {
		run = append(run, "--state-home", state)
	}
	if session != "" {
		run = append(run, "--session", session)
	}
	argv := append([]string{args[0], flag, script}, args[1:]...)
	return runCommand(append(append(run, "--"), argv...), stderr)
}

// shellWords splits s as a POSIX shell splits words: 'quoted', "quoted"
// (its \\ \" \$ \` and \newline escapes), and \ outside quotes. It
// returns nil for what it cannot read (an unclosed quote, an expansion).
func shellWords(s string) []string {
	var out []string
	var w strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil
			}
			w.WriteString(s[i+1 : i+1+j])
			i, in = i+1+j, true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '$' || s[i] == '`' {
					return nil
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`\n", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil
			}
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		case strings.IndexByte("$`;&|<>()", c) >= 0:
			return nil
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}
