package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/backend/index"
	"github.com/fsmcp/fsmcp/backend/queue"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/profiles"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/shell"
)

// flagRow is one of fsmcp's flags, written once: the flag set, the value
// its environment variable gives, its default, how its value is read,
// --help's line and docs/flags.md's row all come from it.
type flagRow struct {
	name string // without its dashes
	arg  string // its value's name in --help ("N", "stdio|http"); "" for a switch
	// env: the flag can also be set as FSMCP_<NAME>; the flag wins, and an
	// empty value (an unset ${VAR} in a host's config) counts as unset.
	env bool
	// def is the default as one would type it, read by parse like any value;
	// "" when there is none or it is not one value (then defDoc says it).
	def    string
	defDoc string // the docs' default, where def cannot say it (markdown)
	// parse settles v, which came from src ("--name", "FSMCP_NAME", or ""
	// for the default), into o. nil: a rule across flags in parseArgs
	// settles the flag (the roots, the token).
	parse func(o *options, v, src string) error

	boolean bool // a switch: --name, --name=false
	repeat  bool // each time given adds a value

	docName string // the docs' first column, where `--name arg` is not it
	// help is --help's words; {default} and {env} stand for the default
	// (def, else defDoc without its backquotes) and the variable's name.
	help string
	doc  string // the docs' meaning column (markdown)
}

// flagRows are fsmcp's flags, in --help's order.
var flagRows = []flagRow{
	{name: "allowed-dir", arg: "DIR", repeat: true, defDoc: "none: fail closed",
		docName: "`DIR ...`, `--allowed-dir DIR`",
		help:    `add an allowed root (repeatable)`,
		doc:     "the allowed roots (repeatable). A leading `~` or `~/` is the home directory (JSON configs pass it unexpanded). Resolved at start; a missing one is skipped with a warning; none usable exits with status 2. With none given, the roots come from the client (its MCP roots, or `_meta.allowed_dirs` on a call) and a call with neither is refused with `no allowed directories: start fsmcp with a directory (fsmcp /path/to/project), or send MCP roots or _meta.allowed_dirs`; the current directory is never served unasked (hosts start servers in `/` or `$HOME`): name it, `fsmcp .`; an empty DIR (`\"\"`, `--allowed-dir=`) is a usage error (status 2)"},
	{name: "profile", arg: "NAME[,NAME]", env: true, def: profiles.Default,
		parse: func(o *options, v, src string) error {
			tables, err := profiles.Lookup(v)
			if err != nil {
				return fmt.Errorf("%s: %v", src, err)
			}
			o.server.Profiles = tables
			return nil
		},
		help: `which server(s) to stand in for; several serve the union of their tools (env {env}; default {default})`,
		doc:  `which server to stand in for; several names serve the union of their tools (the same tool name in two is a start-up error naming both); an unknown name is a usage error (status 2)`},
	{name: "transport", arg: "stdio|http", def: "stdio",
		parse: oneOf("stdio or http", func(o *options) *string { return &o.transport }, "stdio", "http"),
		help:  `how clients connect (default {default})`,
		doc:   `how clients connect`},
	{name: "listen", arg: "ADDR", def: "127.0.0.1:8080",
		parse: text(func(o *options) *string { return &o.http.Addr }),
		help:  `address for --transport http (default {default}); given alone, it means --transport http`,
		doc:   "HTTP address; `/mcp` (Streamable HTTP) and `GET /healthz`. Given without `--transport`, it means `--transport http`; with `--transport stdio` it is a usage error"},
	{name: "auth-token", arg: "TOKEN", env: true, defDoc: "a token made at start",
		help: `require "Authorization: Bearer TOKEN" over http (env {env}); without it, fsmcp makes a token at start and prints it on stderr`,
		doc:  "HTTP clients must send `Authorization: Bearer TOKEN`; a wrong one gets 401 with `WWW-Authenticate: Bearer realm=\"fsmcp\", error=\"invalid_token\"` (RFC 6750), so clients report a bad token instead of starting OAuth. Without it (and without `--no-auth`), fsmcp makes a random token at start and prints on stderr the URL and the header a client needs, as Jupyter does: any local process, another server's sandboxed shell included, can reach a loopback port"},
	{name: "no-auth", boolean: true, env: true,
		help: `serve http without any token (env {env}=1): any local process, a sandboxed shell included, can then use the files`,
		doc:  "serve HTTP without any token, explicitly (in the environment `FSMCP_NO_AUTH=1`). A flag wins over the other setting's env; `--auth-token` with `--no-auth` (or both env settings) is a start-up error"},
	{name: "read-only", boolean: true, parse: switchOn(func(o *options) *bool { return &o.server.ReadOnly }),
		help: `offer no tool that writes, moves, deletes or runs commands`,
		doc:  "tools that write, move, delete or run commands are neither listed nor callable, nor are direct methods that write (`catalog/create`)"},
	{name: "trust-meta", boolean: true, parse: switchOn(func(o *options) *bool { return &o.server.TrustMeta }),
		help: `over http, let _meta.allowed_dirs add roots (default: it only narrows them; over stdio it adds to them, as in fsMCP)`,
		doc:  "over HTTP, `_meta.allowed_dirs` on a call may add roots; without it, it can only narrow them (over stdio it always adds, as in fsMCP)"},
	{name: "resources", boolean: true, parse: switchOn(func(o *options) *bool { return &o.server.Resources }),
		help: `serve the roots' files as MCP resources (file:// URIs, subscriptions)`,
		doc:  "serve the roots' files and directories as MCP resources (`file://` URIs, a template, subscriptions); see [Resources](tools.md#resources)"},
	{name: "shell", arg: "MODE", defDoc: "`sandboxed` where the kernel has Landlock, else `on`; `off` on Windows",
		parse: func(o *options, v, _ string) error {
			m := shell.DefaultMode()
			if v != "" {
				var err error
				if m, err = shell.ParseMode(v); err != nil {
					return err
				}
			}
			o.server.Shell = string(m)
			return nil
		},
		docName: "`--shell on\\|sandboxed\\|off`",
		help:    `fs_bash: sandboxed (its own user and mount namespace holding the roots, plus Landlock; the default where the kernel has Landlock), on (unconfined; the default elsewhere), off (no fs_bash; the default on Windows)`,
		doc:     "`fs_bash`'s confinement (see Security model): `sandboxed` runs the shell in its own user and mount namespace (bubblewrap when installed in a system directory, else the same done in Go), where only the roots and the system's program directories exist, with Landlock inside; where namespaces cannot be made, Landlock alone, and stderr's `shell_confinement=` says which; `off` removes `fs_bash`. On Windows fs_bash cannot run (it needs bash, process sessions and signals), so it is off and not listed, and `--shell on` is a start-up error. An explicit `sandboxed` on a kernel without Landlock, or on macOS and Windows (Landlock is Linux's), is a start-up error (status 2), never a silent fallback. The mode is stated on stderr at start"},
	{name: "search-backend", arg: "KIND", def: "auto",
		parse:   oneOf("auto, rg, find or native", func(o *options) *string { return &o.searchBackend }, "auto", "rg", "find", "native"),
		docName: "`--search-backend auto\\|rg\\|find\\|native`",
		help:    `auto|rg|find|native: who serves fs_grep and fs_glob (default {default}: rg when it is on PATH at start and can run, found through links and shims to the real binary; else, and when it stops working, the built-in native scanner)`,
		doc:     "who serves `fs_grep` and `fs_glob`: `auto` takes `rg` when it is on PATH at start (rg greps; `fs_glob`, which stats every match, is listed by the native walker, which is faster there: see Performance), else the built-in native scanner; `rg` uses rg for both; `find` lists files with `find(1)` (grep stays native). rg is found through links and shims (asdf, mise, a wrapper script) to the real ripgrep binary it hands over to, which searches run (see [Which rg runs](security.md)); an rg that cannot run, or lies in a DIR, leaves `auto` with the native scanner (same answers), and one WARN line on stderr says why, at start or at the search that met it. Named on stderr at start (`search_backend=rg rg=PATH rg_version=V rg_via=\"how PATH led to it\"`); `rg` without a usable rg on PATH is a start-up error (status 2), and a failure later is that search's error"},
	{name: "index", arg: "auto|on|off", def: "auto",
		parse: oneOf("auto, on or off", func(o *options) *string { return &o.index }, "auto", "on", "off"),
		help:  `a trigram index of each DIR in front of fs_grep, built in the background and kept in the user cache directory (default {default}: for a DIR of 50,000 files or more)`,
		doc:   "a trigram index of each DIR in front of `fs_grep` (see [Index](index.md)): built in the background at start (progress and the result on stderr), kept in `$XDG_CACHE_HOME/fsmcp/` (else `~/.cache/fsmcp/`, the OS's cache directory elsewhere), reused across restarts. `auto` indexes a DIR of 50,000 files or more and writes nothing for a smaller one; `on` every DIR; `off` none. Answers are the same either way. On Linux each indexed DIR also holds one inotify watch per directory it searches, empty ones included, and one per indexed file that has a hard link outside the DIR, all within `--index-watches` for all DIRs together (a DIR whose directories do not fit, or on a network or FUSE file system, is not followed: its narrowed searches walk the tree instead, and the log says why); the other files are stat'ed again in the background (`--index-census`). A cache directory inside a DIR is refused: with `on` a start-up error (status 2), with `auto` a warning and no index. Roots given by the client are not indexed"},
	{name: "index-watches", arg: "N", env: true, defDoc: "half of `fs.inotify.max_user_watches`, less 1/64",
		parse: orNone(value(parseCount, func(o *options) *int64 { return &o.indexWatches }), nil),
		help:  `inotify watches the index may hold for all DIRs together, directories and files (default: {default})`,
		doc:   "inotify watches the index may hold for all DIRs together (Linux): one per directory, empty ones included, and one per indexed file with a hard link outside the DIR (few in real trees). `fs.inotify.max_user_watches` bounds every program of the user together (an editor's file watching, a build's, `fs_watch`, a second fsmcp), so by default the index takes at most half of it, less 1/64, and leaves the rest to them. A DIR whose directories do not fit is not followed (its narrowed searches walk the tree, and the log says why); a file that gets no watch is left to the census (`--index-census`)"},
	{name: "index-census", arg: "DURATION", env: true, def: formatDuration(index.DefaultCensusBound),
		parse: value(parseBound, func(o *options) *time.Duration { return &o.indexCensus }),
		help:  `how long a write through a hard link made from outside a DIR may go unseen by indexed searches (default {default}; 0: every search stats each indexed file, exact and slower on big trees)`,
		doc:   "the index's one bounded case (Linux; see [Index](index.md)): a write through a hard link made to a file of a DIR from outside it, after the index began following the DIR, reaches no directory watch, so the index stats the files without a watch of their own again in the background (a census, at most a quarter of a core, while searches come) and a search trusts them while the census's last pass began at most this long ago, else stats them itself. Such a write is seen by every search that starts more than DURATION after the link was made; every change made through a name inside the DIRs is seen by the very next search. `0` makes every search stat every such file (about a second on a million files)"},
	{name: "max-file-size", arg: "SIZE", env: true, def: "10MiB",
		parse: value(parseSize, func(o *options) *int64 { return &o.server.Limits.MaxFileSize }),
		help:  `largest file a whole-file read or edit loads (default {default})`,
		doc:   "largest file a whole-file load (image read, edit) takes, and what one call may load across all the files it names (or 4 bytes per `--max-output` character if that is more: `read_multiple_files`, `read_content` naming one big file forty times load it until then, and each further file is refused in one sentence); `512KiB`, `1GiB`, or bytes"},
	{name: "max-output", arg: "N", env: true, def: "40000",
		parse: value(parseInt, func(o *options) *int { return &o.server.Limits.MaxOutput }),
		help:  `characters in one tool result (default {default})`,
		doc:   "characters in one tool result, its closing note included; longer results are cut at a whole line, match or path and say how to get the rest. Under Claude Code's 50,000-character threshold (above it, Claude Code saves the result to a file and shows the model a 2 KB preview, which loses the note), and declared to it per tool as `_meta[\"anthropic/maxResultSizeChars\"]` (fsmcp profile). A host known to cut results shorter (Copilot CLI, Codex, Gemini CLI) gets answers within its own limit, in its unit ([Answer size per host](clients.md#answer-size-per-host))"},
	{name: "timeout", arg: "DURATION", env: true, def: "30s",
		parse: value(parseDuration, func(o *options) *time.Duration { return &o.server.Limits.Timeout }),
		help:  `time limit of one tool call (default {default})`,
		doc:   `time limit of one tool call`},
	{name: "max-results", arg: "N", env: true, def: "1000",
		parse: value(parseInt, func(o *options) *int { return &o.server.Limits.MaxResults }),
		help:  `entries in one search or listing (default {default})`,
		doc:   `entries in one search or listing`},
	{name: "max-searches", arg: "N", env: true, defDoc: "the cores, at least 2",
		parse: orNone(value(parseInt, func(o *options) *int { return &o.maxSearches }), func(o *options) { o.maxSearches = queue.DefaultSearches() }),
		help:  `searches (fs_grep, fs_glob, the profiles' search tools) running at once; more wait their turn, each session (or, without one, each client address) in turn (default: {default})`,
		doc:   "searches running at once in the server: `fs_grep`, `fs_glob`, and every profile's search tool (reference `search_files`, peekaboo `search_path` and `search_content`, filesystem-mcp `search_files`, LocalCowork `filesystem.search_files`), all through one admission. More wait their turn in a queue, the queues served in turn, so one client's burst cannot starve another's search. A queue is an MCP session's (stdio, or an HTTP session: `--max-sessions` bounds how many), and for requests that belong to no session (2026-07-28 stateless requests, plain JSON-RPC over HTTP) their client address's: each such request is a session of its own to the SDK, so one queue per request would let a flood take every turn. Clients behind one address (a proxy, every local client on loopback) that send no session share that one queue. Reads, listings and edits never wait behind searches. A queued search's `--timeout` starts when it runs"},
	{name: "search-wait", arg: "DURATION", env: true, def: formatDuration(queue.DefaultSearchWait),
		parse: value(parseDuration, func(o *options) *time.Duration { return &o.searchWait }),
		help:  `longest a search waits for its turn before it is refused as busy; --timeout counts from its start, not from the wait (default {default})`,
		doc:   "the longest a search waits for its turn; past it the call fails with `the server is busy: N searches are running and this one waited 1m0s for a turn; retry in a moment`, never with a partial answer. A client that gives up on a call sooner (the TypeScript SDK's default is 60 s, for the wait and the search together) is better served by a shorter wait"},
	{name: "max-sessions", arg: "N", env: true, def: strconv.Itoa(server.DefaultMaxSessions),
		parse: value(parseInt, func(o *options) *int { return &o.http.MaxSessions }),
		help:  `HTTP sessions open at once; one more is answered 503 (default {default})`,
		doc:   "HTTP sessions open at once. A client that would open one more gets `503 Service Unavailable` (with `Retry-After`) saying so; ending a session (HTTP `DELETE`) or its going idle frees its place"},
	{name: "session-idle", arg: "DURATION", env: true, def: formatDuration(server.DefaultSessionIdle),
		parse: value(parseDuration, func(o *options) *time.Duration { return &o.http.SessionIdle }),
		help:  `close an HTTP session that sent nothing for this long, ending its shell and watchers (default {default})`,
		doc:   `an HTTP session that sent nothing for this long is closed, ending its shell, watches and subscriptions`},
	{name: "log-level", arg: "LEVEL", def: "info",
		parse: func(o *options, v, _ string) error {
			if err := o.logLevel.UnmarshalText([]byte(v)); err != nil {
				return fmt.Errorf("--log-level must be debug, info, warn or error, not %q", v)
			}
			return nil
		},
		help: `debug|info|warn|error (default {default}); logs go to stderr; debug logs each tool call (name, duration, outcome)`,
		doc:  "`debug`, `info`, `warn`, `error`; logs go to stderr only, never stdout. `debug` logs each tool call: name, duration, outcome (`ok`, `isError`, `input required` for a 2026-07-28 call answered with a question for the client's roots, or `protocol error` with its code)"},
	{name: "audit-log", arg: "FILE", env: true, defDoc: "none",
		parse: text(func(o *options) *string { return &o.auditLog }),
		help:  `append one JSON line per tool call to FILE (env {env}): tool, argument names, path arguments, duration, outcome`,
		doc:   "append one JSON line per tool call to FILE: time, session id (HTTP), tool, the argument names, the values of path-like arguments (`path`, `file_path`, `source`, ...), duration, outcome, and for a failure the error's kind and path (never its text, which can quote contents). Other argument values are left out on purpose: they carry file contents, edits and shell commands, and an audit trail must not become a second copy of what it audits. Opened append-only, mode 0600; a symlink or stdout is refused (status 2)"},
	{name: "journal", arg: "on|off", env: true, def: "on",
		parse: func(o *options, v, src string) error {
			on, err := parseOnOff(v)
			if err != nil {
				return fmt.Errorf("%s: %v", src, err)
			}
			// Given on purpose (flag or environment), a journal that
			// cannot be kept is an error, not a warning.
			o.journalOff, o.journal.Strict = !on, on && src != ""
			return nil
		},
		help: `keep a journal of every change for undo (default {default}); it lives in $XDG_STATE_HOME/fsmcp/journal (else ~/.local/state; %LOCALAPPDATA% on Windows), outside the roots`,
		doc:  "keep the [change journal](journal.md) for undo. Its directory is `$XDG_STATE_HOME/fsmcp/journal/` (else `~/.local/state/fsmcp/journal/`; on Windows `%LOCALAPPDATA%\\fsmcp\\journal\\`). When that lies inside a DIR (`fsmcp ~`), changes in that DIR are not journaled and a warning says so; so are all changes when neither `$XDG_STATE_HOME` nor `$HOME` (on Windows `%LOCALAPPDATA%`) is set (a host that passes only `PATH`); with an explicit `--journal on` either is a start-up error (status 2)"},
	{name: "journal-size", arg: "SIZE", env: true, def: formatSize(journal.DefaultSize),
		parse: value(parseSize, func(o *options) *int64 { return &o.journal.MaxSize }),
		help:  `the journal's bound per root, oldest changes out first (default {default})`,
		doc:   `the journal's bound per root (log and kept contents); oldest changes leave first`},
	{name: "journal-age", arg: "DURATION", env: true, def: formatDuration(journal.DefaultAge),
		parse: value(parseDuration, func(o *options) *time.Duration { return &o.journal.MaxAge }),
		help:  `changes older than this leave the journal (default {default})`,
		doc:   `changes older than this leave the journal`},
	{name: "journal-tools", boolean: true, parse: switchOn(func(o *options) *bool { return &o.journalTools }),
		help: `serve fs_history and fs_undo in other profiles too (the fsmcp profile always has them)`,
		doc:  "serve `fs_history` and `fs_undo` in the other profiles too (the fsmcp profile always has them)"},
	{name: "version", boolean: true, parse: switchOn(func(o *options) *bool { return &o.version }),
		help: `print the version, and the rg searches use (its path, version and how PATH led to it)`,
		doc:  "prints `fsmcp VERSION`, then the rg searches would use (`rg: /usr/bin/rg (ripgrep 13.0.0), on PATH as ~/.asdf/shims/rg, a script run by /usr/bin/env bash that hands over to /usr/bin/rg`), or why none can be used"},
	// --help is the flag package's own (flag.ErrHelp): listed, not defined.
	{name: "help", help: `print this help`},
}

// envName is the row's environment variable, "" if it has none.
func (r *flagRow) envName() string {
	if !r.env {
		return ""
	}
	return "FSMCP_" + strings.ToUpper(strings.ReplaceAll(r.name, "-", "_"))
}

// usage is the flag as --help spells it: --name ARG.
func (r *flagRow) usage() string {
	if r.arg == "" {
		return "--" + r.name
	}
	return "--" + r.name + " " + r.arg
}

// value is the row's value and where it came from: the command line's
// (given), else the environment's, else the default (src "").
func (r *flagRow) value(given *flagValue, getenv func(string) string) (v, src string) {
	if given != nil && len(given.text) > 0 {
		if v = given.text[len(given.text)-1]; v != "" || !r.env {
			return v, "--" + r.name
		}
	}
	if r.env {
		if v = getenv(r.envName()); v != "" {
			return v, r.envName()
		}
	}
	return r.def, ""
}

// rowNamed is the row of the flag name.
func rowNamed(name string) *flagRow {
	for i := range flagRows {
		if flagRows[i].name == name {
			return &flagRows[i]
		}
	}
	panic("no flag row " + name)
}

// flagValue is a flag's text as given on the command line, read by its
// row's parse once the environment and the defaults are known.
type flagValue struct {
	text            []string // each value given, in order
	boolean, repeat bool
}

// errParse is the flag package's word for a switch's bad value.
var errParse = errors.New("parse error")

func (v *flagValue) String() string   { return strings.Join(v.text, ",") }
func (v *flagValue) IsBoolFlag() bool { return v.boolean }
func (v *flagValue) Set(s string) error {
	if v.boolean {
		if _, err := strconv.ParseBool(s); err != nil {
			return errParse
		}
	}
	if !v.repeat {
		v.text = v.text[:0]
	}
	v.text = append(v.text, s)
	return nil
}

// given reports whether the flag was on the command line.
func (v *flagValue) given() bool { return v != nil && len(v.text) > 0 }

// last is the flag's value on the command line, "" if not given.
func (v *flagValue) last() string {
	if !v.given() {
		return ""
	}
	return v.text[len(v.text)-1]
}

// The parse functions of the rows.

// value reads a setting with parse into at(o); an error names its source.
func value[T any](parse func(string) (T, error), at func(*options) *T) func(*options, string, string) error {
	return func(o *options, v, src string) error {
		x, err := parse(v)
		if err != nil {
			return fmt.Errorf("%s: %v", src, err)
		}
		*at(o) = x
		return nil
	}
}

// orNone is parse, or none(o) when there is no value (a default that is
// not one value, computed where it is used).
func orNone(parse func(*options, string, string) error, none func(*options)) func(*options, string, string) error {
	return func(o *options, v, src string) error {
		if v == "" {
			if none != nil {
				none(o)
			}
			return nil
		}
		return parse(o, v, src)
	}
}

// text stores the value as it is.
func text(at func(*options) *string) func(*options, string, string) error {
	return func(o *options, v, _ string) error { *at(o) = v; return nil }
}

// switchOn stores a switch's value (the flag set has checked it).
func switchOn(at func(*options) *bool) func(*options, string, string) error {
	return func(o *options, v, _ string) error {
		*at(o), _ = strconv.ParseBool(v)
		return nil
	}
}

// oneOf takes one of the choices (said as want in the error).
func oneOf(want string, at func(*options) *string, choices ...string) func(*options, string, string) error {
	return func(o *options, v, src string) error {
		for _, c := range choices {
			if v == c {
				*at(o) = v
				return nil
			}
		}
		return fmt.Errorf("%s must be %s, not %q", src, want, v)
	}
}

// formatSize spells a byte count as parseSize reads it, in the largest
// unit that divides it.
func formatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// formatDuration spells d without its zero minutes and seconds: 1m, 168h.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
