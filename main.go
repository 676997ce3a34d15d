// Command fsmcp serves a developer's files to an AI agent over the Model
// Context Protocol: flags and env become a configuration, the configuration
// becomes a server, and the server runs on stdio or Streamable HTTP.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/fsmcp/fsmcp/backend/driver"
	"github.com/fsmcp/fsmcp/backend/stack"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/shell"
	"github.com/fsmcp/fsmcp/toolkit"
	"github.com/fsmcp/fsmcp/wire"
)

func main() {
	// fsmcp re-executes itself as fs_bash's sandbox helper; in that role
	// it confines itself and becomes bash, and never gets past this line.
	shell.MaybeRunSandboxChild()
	os.Exit(run(os.Args[1:], os.Stderr))
}

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2 // bad flags, or no usable root
)

func run(args []string, stderr *os.File) int {
	if code, ok := subcommand(args, stderr); ok {
		return code
	}
	opts, code := configure(args, stderr)
	if opts == nil {
		return code
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: opts.logLevel}))
	p, code := assemble(opts, log, stderr)
	if p == nil {
		return code
	}
	defer p.close()
	p.announce(opts, log)
	return p.serve(opts, log, stderr)
}

// subcommand runs fsmcp's other commands (history, undo, run, hooks,
// hook); ok is false when args are a server's.
func subcommand(args []string, stderr *os.File) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	if journalCommands[args[0]] {
		return runJournal(args, os.Stdout, stderr), true
	}
	switch args[0] {
	case "run":
		return runCommand(args[1:], stderr), true
	case "hooks":
		return runHooks(args[1:], os.Stdout, stderr), true
	case "hook":
		return runHook(args[1:], os.Stdin, os.Stdout, stderr), true
	}
	return 0, false
}

// configure turns the flags and environment into options, answering
// --help and --version and refusing a shell it cannot give; nil options
// mean fsmcp ends with code.
func configure(args []string, stderr *os.File) (*options, int) {
	opts, err := parseArgs(args, os.Getenv)
	if errors.Is(err, errHelp) {
		fmt.Fprint(os.Stdout, usage())
		return nil, exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp: %v\nRun 'fsmcp --help' for usage.\n", err)
		return nil, exitUsage
	}
	if opts.version {
		fmt.Fprintf(os.Stdout, "fsmcp %s\nrg: %s\n", buildVersion(), driver.FindRG(resolvedRoots(opts.roots)))
		return nil, exitOK
	}
	// An explicit --shell sandboxed without Landlock must not quietly run
	// an unconfined shell.
	if err := shell.CheckMode(shell.Mode(opts.server.Shell)); err != nil {
		fmt.Fprintf(stderr, "fsmcp: %v; use --shell on to run fs_bash unconfined, or --shell off\n", err)
		return nil, exitUsage
	}
	// The sandboxed shell's helper is a sealed copy of this program,
	// taken now, before any tool has run (see shell.PrepareHelper).
	if opts.server.Shell == string(shell.ModeSandboxed) && !opts.server.ReadOnly {
		if err := shell.PrepareHelper(); err != nil {
			fmt.Fprintf(stderr, "fsmcp: --shell sandboxed: %v\n", err)
			return nil, exitError
		}
	}
	return opts, exitOK
}

// process is what a serving fsmcp holds: its roots, its search stack
// and its server (with the journal and audit log it serves through).
type process struct {
	sb      *sandbox.Sandbox
	search  *stack.Stack
	srv     *server.Server
	closers []func() // closed last first: the server before what it writes to
}

func (p *process) close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
}

// assemble builds the process from opts: the roots' sandbox, the search
// stack (once, in its one order: backend/stack), the journal, the audit
// log and the server. A nil process means fsmcp ends with code; what
// was built by then is closed.
func assemble(opts *options, log *slog.Logger, stderr *os.File) (_ *process, code int) {
	p := &process{}
	fail := func(code int, format string, args ...any) (*process, int) {
		fmt.Fprintf(stderr, "fsmcp: "+format+"\n", args...)
		p.close()
		return nil, code
	}
	sb, errs := sandbox.New(opts.roots)
	for _, e := range errs {
		if !errors.Is(e, sandbox.ErrNoRoots) {
			log.Warn("skipping allowed directory", "error", e)
		}
	}
	if opts.rootsGiven && len(sb.Roots()) == 0 {
		return fail(exitUsage, "no usable allowed directory among %s", strings.Join(opts.roots, ", "))
	}
	p.sb, p.closers = sb, append(p.closers, func() { sb.Close() })
	// rg as PATH has it, nothing of it in a root.
	search, err := stack.New(stack.Options{
		Backend: opts.searchBackend, Roots: sb.Roots(),
		Index: opts.index, IndexWatches: opts.indexWatches, IndexCensus: opts.indexCensus,
		MaxSearches: opts.maxSearches, SearchWait: opts.searchWait, Log: log,
	})
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	p.search, p.closers = search, append(p.closers, search.Close)
	jr, err := newJournal(opts, sb.Roots(), log)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	p.closers = append(p.closers, func() { jr.Close() }) // after the server's: what its last calls wrote reaches the disk
	if jr != nil {
		opts.server.Journal = jr
	}
	audit, err := openAudit(opts.auditLog)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	p.closers = append(p.closers, func() { audit.Close() })
	opts.server.Search = search.Stack
	opts.server.Audit = audit
	srv, err := server.New(opts.server, sb, log)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	p.srv, p.closers = srv, append(p.closers, srv.Close)
	return p, exitOK
}

// announce logs what the process serves, and finds the shell's
// confinement beside serving (a namespace started once, about 25 ms),
// not before the first answer; the first fs_bash call waits for it.
func (p *process) announce(opts *options, log *slog.Logger) {
	start := []any{"search_backend", p.search.Backend}
	if p.search.RG.Bin != "" && p.search.Backend == "rg" {
		start = append(start, "rg", p.search.RG.Bin, "rg_version", p.search.RG.Version, "rg_via", p.search.RG.Via)
	}
	start = append(start, "transport", opts.transport, "read_only", opts.server.ReadOnly)
	if opts.rootsGiven {
		log.Info("fsmcp starting", append([]any{"roots", p.sb.Roots()}, start...)...)
	} else {
		log.Info("fsmcp starting with no directory: the roots come from the client (MCP roots or _meta.allowed_dirs); calls without them are refused", start...)
	}
	if !opts.server.ReadOnly {
		go func() {
			log.Info(shell.Describe(shell.Mode(opts.server.Shell)), "shell_confinement", shell.Confinement(shell.Mode(opts.server.Shell)))
		}()
	}
}

// serve runs the transport until its end or a signal; SIGHUP too (the
// terminal went away): every way out runs the process's close, which
// kills what fs_bash commands left running.
func (p *process) serve(opts *options, log *slog.Logger, stderr *os.File) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	switch opts.transport {
	case "stdio":
		if isTerminal(os.Stdin) {
			terminalNote(stderr, executable(), p.sb.Roots())
		}
		// The end of input and a plain client's exit are normal ends.
		if err := p.srv.ServeStdio(ctx); err != nil && !errors.Is(err, wire.ErrExit) && ctx.Err() == nil {
			log.Error("stdio transport ended", "error", err)
			return exitError
		}
	case "http":
		opts.http.Log, opts.http.Banner = log, stderr
		if err := p.srv.ListenAndServe(ctx, opts.http); err != nil {
			log.Error("http transport ended", "error", err)
			return exitError
		}
	}
	return exitOK
}

// resolvedRoots are the DIRs as sandbox.New would resolve them, for
// --version, which opens none: the ones that exist.
func resolvedRoots(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			if a, err := filepath.Abs(r); err == nil {
				out = append(out, a)
			}
		}
	}
	return out
}

// openAudit opens --audit-log; no path, no audit log.
func openAudit(path string) (*toolkit.Audit, error) {
	if path == "" {
		return nil, nil
	}
	return toolkit.OpenAudit(path)
}

// isTerminal reports whether f is a terminal: someone typed fsmcp at a
// prompt, where nobody speaks JSON-RPC.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// terminalNote tells a person who ran fsmcp at a prompt what it is waiting
// for, instead of a silent cursor. The host lines name this binary and the
// first root when there is one, ready to paste: the JSON one is encoded,
// so a Windows path comes out with its backslashes escaped.
func terminalNote(w io.Writer, exe string, roots []string) {
	dir := "/path/to/project"
	if len(roots) > 0 {
		dir = roots[0]
	}
	fmt.Fprintf(w, `fsmcp speaks MCP (JSON-RPC) on stdin/stdout: an agent host starts it, not a person.
Add it to a host, e.g. Claude Code:
    claude mcp add fsmcp -- %s %s
or a JSON config (Claude Desktop, Cursor; VS Code's key is "servers"):
    "mcpServers": {"fsmcp": {"command": %s, "args": [%s]}}
For HTTP clients run: fsmcp --listen 127.0.0.1:8080 DIR. Ctrl-D or Ctrl-C ends it; fsmcp --help lists the flags.
`, shellQuote(exe), shellQuote(dir), jsonString(exe), jsonString(dir))
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// path characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:,=@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// executable is the path a host config should name: the absolute path of
// this binary when the OS knows it.
func executable() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return "fsmcp"
}

// newJournal is the change journal for the server's roots (nil with
// --journal off). A journal directory inside one of the roots would let
// a tool read it or forge the log an undo trusts: that is a start-up
// error with --journal on, else the server runs unjournaled and says so.
func newJournal(opts *options, roots []string, log *slog.Logger) (*journal.Set, error) {
	if opts.journalOff {
		if opts.journalUnset != "" {
			log.Warn("changes are not journaled and cannot be undone", "why", opts.journalUnset)
		}
		return nil, nil
	}
	j := journal.New(opts.journal, files.JournalOps{})
	if err := j.CheckRoots(roots); err != nil {
		if opts.journal.Strict {
			return nil, err
		}
		log.Warn("changes are not journaled and cannot be undone", "why", err.Error())
		return nil, nil
	}
	if id := os.Getenv("CLAUDE_CODE_SESSION_ID"); id != "" && opts.transport == "stdio" {
		j.HostSession(id) // as Claude Code's hooks label it (fsmcp hooks)
	}
	for _, r := range roots {
		if st, err := j.Store(r); err == nil {
			st.WriteBound()
		}
	}
	return j, nil
}
