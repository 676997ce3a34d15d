// Package profile is fsmcp's runtime, shared by every profile: what a tool
// handler gets (Env, Call), per-session state (Sessions), the client's
// roots and _meta.allowed_dirs, the per-session notifier, the limits, and
// the table machinery — a profile is a Table of typed tools (Bind) with its
// own error mapping, path rule and answer shapes. It holds no file
// operation (those are in files/, catalog/, watch/, backend/) and no
// profile's wording (that is in tools/ and profiles/<name>/).
package profile

import (
	"log/slog"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/shell"
)

// Limits bound what one call may read, run for, or return.
type Limits struct {
	MaxFileSize int64         // bytes a whole-file read or edit may load
	MaxOutput   int           // characters in one tool result
	Timeout     time.Duration // per call; fs_bash has its own
	MaxResults  int           // entries from a search or listing
}

// Env is what every tool handler may use, the same for every profile.
type Env struct {
	Sandbox   *sandbox.Sandbox
	Limits    Limits
	TrustMeta bool // _meta.allowed_dirs may add roots, not only narrow them
	// ClientRoots: no DIR was given, so a client's MCP roots, when it
	// offers them, replace the default root.
	ClientRoots bool
	Log         *slog.Logger
	Sessions    *Sessions
	// Shell is fs_bash's confinement; "" or shell.ModeOff leaves tools
	// with NeedsShell out.
	Shell shell.Mode
	// Searcher serves grep and glob: backend.Select(--search-backend,
	// fallback.New()). The server fills it in when nil.
	Searcher backend.Searcher
	// Audit, when set, gets one line per tool call (--audit-log).
	Audit *Audit
}

// ShellOff reports whether tools that run commands are left out.
func (e *Env) ShellOff() bool { return e.Shell == "" || e.Shell == shell.ModeOff }
