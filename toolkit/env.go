// Package toolkit is fsmcp's runtime, shared by every profile: what a tool
// handler gets (Env, Call), per-session state (Sessions), the client's
// roots and _meta.allowed_dirs, the per-session notifier, the limits, and
// the table machinery — a profile is a Table of typed tools (Bind) with its
// own error mapping, path rule and answer shapes. It holds no file
// operation (those are in files/, catalog/, watch/, backend/) and no
// profile's wording (that is in profiles/<name>/).
package toolkit

import (
	"context"
	"log/slog"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Limits bound what one call may read, run for, or return.
type Limits struct {
	MaxFileSize int64         // bytes a whole-file read or edit may load
	MaxOutput   int           // characters in one tool result
	Timeout     time.Duration // per call; fs_bash has its own
	MaxResults  int           // entries from a search or listing
}

// CallBytes is how many bytes one call may load across all the files it
// reads whole: one file's worth (--max-file-size), or the most text an
// answer can hold (--max-output characters of up to 4 bytes) if that is
// more; 0 (no budget) when files have no limit either.
func (l Limits) CallBytes() int64 {
	if l.MaxFileSize <= 0 {
		return 0
	}
	return max(l.MaxFileSize, 4*int64(l.MaxOutput))
}

// WholeReads are the bounds of one call's whole-file reads, for
// files.NewLoadBudget: each file at most --max-file-size, the call at most
// CallBytes across all the files it names. A handler makes one budget
// for the call and reads every file through it, so naming one 10 MiB
// file forty times loads at most CallBytes, not forty files.
func (l Limits) WholeReads() (perFile, perCall int64) { return l.MaxFileSize, l.CallBytes() }

// Settings are the operator's choices the runtime reads: parsed once from
// flags and environment (package main), carried by server.Config and
// embedded in Env unchanged, never copied field by field.
type Settings struct {
	// ReadOnly leaves out every tool and method that writes, moves,
	// deletes or runs commands (--read-only).
	ReadOnly bool
	Limits   Limits
	// TrustMeta: _meta.allowed_dirs may add roots, not only narrow them
	// (stdio, where the host that started fsmcp could name any directory
	// anyway, or --trust-meta). With no root at all it is the allowed set
	// whatever this says.
	TrustMeta bool
	// ClientRoots: no DIR was given (Env.Default has no root), so a
	// client's MCP roots, when it offers them, are the roots.
	ClientRoots bool
	// Shell is fs_bash's confinement, a shell.Mode by its name (main
	// checks it; toolkit does not import shell): "" or ShellModeOff
	// leaves tools with NeedsShell out.
	Shell string
	// Getenv reads the server's environment, for profiles configured by
	// their original's variables (LOCALCOWORK_DATA_DIR); nil reads none.
	Getenv func(string) string
	// Audit, when set, gets one line per tool call (--audit-log).
	Audit *Audit
}

// Env is what every tool handler may use, the same for every profile.
type Env struct {
	Settings
	// Default is the sandbox of the DIRs given at start. A call works in
	// Call.Sandbox, which the client's roots or _meta.allowed_dirs may
	// make differ from it.
	Default  *sandbox.Sandbox
	Log      *slog.Logger
	Sessions *Sessions
	// Searcher serves grep and glob: the door of the search stack that
	// stack.New built (main's), which the server hands in.
	Searcher backend.Searcher
	// Admission bounds the searches running at once (--max-searches): the
	// Searcher's go through it, and so does every call of a tool marked
	// Search (Searching). nil: none.
	Admission Admission
	// Journal keeps what each call changes, for undo (nil: none).
	Journal Journal
	// Changed, when set, is told after each call of a tool that may
	// write: the search page cache's (queue.Stack.Changed), whose kept results
	// are then stale.
	Changed func()
	// CallClock, when set, starts a call's time limit (--timeout):
	// queue.WithCallTimeout, whose clock stops while the call waits for
	// a search slot. nil: context.WithTimeout.
	CallClock func(context.Context, time.Duration) (context.Context, context.CancelFunc)

	memory releaser // hands memory back after large calls
}

// Admission is the queue of searches (queue.Admission) a tool marked
// Search waits in for its whole call: Enter returns once the call holds
// a slot (its context says so, so the call's own searches take no
// second), or refuses it as busy; release frees the slot.
type Admission interface {
	Enter(ctx context.Context) (_ context.Context, release func(), err error)
}

// Journal begins the change journal's step for one call: the writers the
// call reaches report to the context it returns, and end finishes the
// step, returning sentences the answer carries (what was not kept).
// journal.Set implements it.
type Journal interface {
	BeginCall(ctx context.Context, tool, session, client string, roots []string) (_ context.Context, end func() []string)
}

// Var returns the environment variable key ("" without Getenv).
func (e *Env) Var(key string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(key)
}

// ShellOff reports whether tools that run commands are left out.
func (e *Env) ShellOff() bool { return e.Shell == "" || e.Shell == ShellModeOff }

// ShellModeOff is shell.ModeOff's name (TestShellModeOffIsShells keeps
// them one).
const ShellModeOff = "off"

// ResultLimit is --max-results lowered to a client's own limit n (n <= 0:
// the client asked for none): the one count a profile hands the core
// (files' Max, backend.Run's limit), never compares against itself.
func (l Limits) ResultLimit(n int) int {
	if n > 0 && (l.MaxResults <= 0 || n < l.MaxResults) {
		return n
	}
	return l.MaxResults
}

// ResultCap counts a profile's results against --max-results where the
// profile filters what the core found (a name pattern over a walk): Take
// says whether one more fits, and Cut whether one did not.
type ResultCap struct {
	Max int // --max-results; 0 takes everything
	n   int
	Cut bool
}

// ResultCap is a count against the call's --max-results.
func (c *Call) ResultCap() *ResultCap { return &ResultCap{Max: c.Limits.MaxResults} }

// Take reports whether one more result fits; when it does not, Cut is set.
func (r *ResultCap) Take() bool {
	if r.Max > 0 && r.n >= r.Max {
		r.Cut = true
		return false
	}
	r.n++
	return true
}
