// Command fsmcp serves a developer's files to an AI agent over the Model
// Context Protocol: flags and env become a configuration, the configuration
// becomes a server, and the server runs on stdio or Streamable HTTP.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/fallback"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/shell"
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
	if len(args) > 0 && (args[0] == "history" || args[0] == "undo") {
		return runJournal(args, os.Stdout, stderr)
	}
	opts, err := parseArgs(args, os.Getenv)
	if errors.Is(err, errHelp) {
		fmt.Fprint(os.Stdout, usage)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp: %v\nRun 'fsmcp --help' for usage.\n", err)
		return exitUsage
	}
	if opts.version {
		fmt.Fprintf(os.Stdout, "fsmcp %s\n", buildVersion())
		return exitOK
	}
	// An explicit --shell sandboxed without Landlock must not quietly run
	// an unconfined shell.
	if err := shell.CheckMode(opts.server.Shell); err != nil {
		fmt.Fprintf(stderr, "fsmcp: %v; use --shell on to run fs_bash unconfined, or --shell off\n", err)
		return exitUsage
	}
	// The sandboxed shell's helper is a sealed copy of this program,
	// taken now, before any tool has run (see shell.PrepareHelper).
	if opts.server.Shell == shell.ModeSandboxed && !opts.server.ReadOnly {
		if err := shell.PrepareHelper(); err != nil {
			fmt.Fprintf(stderr, "fsmcp: --shell sandboxed: %v\n", err)
			return exitError
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: opts.logLevel}))

	native := fallback.New()
	searcher, err := backend.Select(opts.searchBackend, native)
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp: --search-backend %s: %v\n", opts.searchBackend, err)
		return exitUsage
	}

	sb, errs := sandbox.New(opts.roots)
	for _, e := range errs {
		if !errors.Is(e, sandbox.ErrNoRoots) {
			log.Warn("skipping allowed directory", "error", e)
		}
	}
	if opts.rootsGiven && len(sb.Roots()) == 0 {
		fmt.Fprintf(stderr, "fsmcp: no usable allowed directory among %s\n", strings.Join(opts.roots, ", "))
		return exitUsage
	}
	defer sb.Close()
	if err := useJournal(opts, sb.Roots(), log); err != nil {
		fmt.Fprintf(stderr, "fsmcp: %v\n", err)
		return exitUsage
	}

	searcher, stopIndex, err := withIndex(opts.index, searcher, native, sb.Roots(), log)
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp: --index on: %v\n", err)
		return exitUsage
	}
	defer stopIndex()

	audit, err := openAudit(opts.auditLog)
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp: %v\n", err)
		return exitUsage
	}
	defer audit.Close()

	opts.server.Searcher, opts.server.Audit = searcher, audit
	srv, err := server.New(opts.server, sb, log)
	if err != nil {
		fmt.Fprintf(stderr, "fsmcp: %v\n", err)
		return exitUsage
	}
	defer srv.Close()

	if opts.rootsGiven {
		log.Info("fsmcp starting", "roots", sb.Roots(), "search_backend", searcher.Name(), "transport", opts.transport, "read_only", opts.server.ReadOnly)
	} else {
		log.Info("fsmcp starting with no directory: the roots come from the client (MCP roots or _meta.allowed_dirs); calls without them are refused",
			"search_backend", searcher.Name(), "transport", opts.transport, "read_only", opts.server.ReadOnly)
	}
	if !opts.server.ReadOnly {
		// Finding the confinement starts a namespace once (about 25 ms):
		// done beside serving, not before the first answer. The first
		// fs_bash call waits for the same probe.
		go func() {
			log.Info(shell.Describe(opts.server.Shell), "shell_confinement", shell.Confinement(opts.server.Shell))
		}()
	}

	// SIGHUP too (the terminal went away): every way out runs the deferred
	// srv.Close, which kills what fs_bash commands left running.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	switch opts.transport {
	case "stdio":
		if isTerminal(os.Stdin) {
			terminalNote(stderr, executable(), sb.Roots())
		}
		// The end of input and a plain client's exit are normal ends.
		if err := srv.ServeStdio(ctx); err != nil && !errors.Is(err, wire.ErrExit) && ctx.Err() == nil {
			log.Error("stdio transport ended", "error", err)
			return exitError
		}
	case "http":
		opts.http.Log, opts.http.Banner = log, stderr
		if err := srv.ListenAndServe(ctx, opts.http); err != nil {
			log.Error("http transport ended", "error", err)
			return exitError
		}
	}
	return exitOK
}
