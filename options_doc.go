package main

import (
	"strings"
)

// flagDoc is one flag as --help and docs/flags.md show it, written once,
// here: --help's list and the docs' table are made from flagDocs, and
// TestFlagsDocumented fails when a flag the parser knows is missing here
// or docs/flags.md does not hold the table made from it.
type flagDoc struct {
	Usage   string // as --help spells it: --name ARG
	Name    string // the docs' first column (markdown)
	Default string // the docs' default column (markdown)
	Help    string // --help's words
	Doc     string // the docs' meaning column (markdown)
}

var flagDocs = []flagDoc{
	{`--allowed-dir DIR`, "`DIR ...`, `--allowed-dir DIR`", `none: fail closed`,
		`add an allowed root (repeatable)`,
		"the allowed roots (repeatable). A leading `~` or `~/` is the home directory (JSON configs pass it unexpanded). Resolved at start; a missing one is skipped with a warning; none usable exits with status 2. With none given, the roots come from the client (its MCP roots, or `_meta.allowed_dirs` on a call) and a call with neither is refused with `no allowed directories: start fsmcp with a directory (fsmcp /path/to/project), or send MCP roots or _meta.allowed_dirs`; the current directory is never served unasked (hosts start servers in `/` or `$HOME`): name it, `fsmcp .`; an empty DIR (`\"\"`, `--allowed-dir=`) is a usage error (status 2)"},
	{`--profile NAME[,NAME]`, "`--profile NAME[,NAME]`", "env `FSMCP_PROFILE`, else `fsmcp`",
		`which server(s) to stand in for; several serve the union of their tools (env FSMCP_PROFILE; default fsmcp)`,
		`which server to stand in for; several names serve the union of their tools (the same tool name in two is a start-up error naming both); an unknown name is a usage error (status 2)`},
	{`--transport stdio|http`, "`--transport stdio\\|http`", "`stdio`",
		`how clients connect (default stdio)`,
		`how clients connect`},
	{`--listen ADDR`, "`--listen ADDR`", "`127.0.0.1:8080`",
		`address for --transport http (default 127.0.0.1:8080); given alone, it means --transport http`,
		"HTTP address; `/mcp` (Streamable HTTP) and `GET /healthz`. Given without `--transport`, it means `--transport http`; with `--transport stdio` it is a usage error"},
	{`--auth-token TOKEN`, "`--auth-token TOKEN`", "env `FSMCP_AUTH_TOKEN`; else a token made at start",
		`require "Authorization: Bearer TOKEN" over http (env FSMCP_AUTH_TOKEN); without it, fsmcp makes a token at start and prints it on stderr`,
		"HTTP clients must send `Authorization: Bearer TOKEN`; a wrong one gets 401 with `WWW-Authenticate: Bearer realm=\"fsmcp\", error=\"invalid_token\"` (RFC 6750), so clients report a bad token instead of starting OAuth. Without it (and without `--no-auth`), fsmcp makes a random token at start and prints on stderr the URL and the header a client needs, as Jupyter does: any local process, another server's sandboxed shell included, can reach a loopback port"},
	{`--no-auth`, "`--no-auth`", "off (env `FSMCP_NO_AUTH=1`)",
		`serve http without any token (env FSMCP_NO_AUTH=1): any local process, a sandboxed shell included, can then use the files`,
		"serve HTTP without any token, explicitly. A flag wins over the other setting's env; `--auth-token` with `--no-auth` (or both env settings) is a start-up error"},
	{`--read-only`, "`--read-only`", `off`,
		`offer no tool that writes, moves, deletes or runs commands`,
		"tools that write, move, delete or run commands are neither listed nor callable, nor are direct methods that write (`catalog/create`)"},
	{`--trust-meta`, "`--trust-meta`", `off`,
		`over http, let _meta.allowed_dirs add roots (default: it only narrows them; over stdio it adds to them, as in fsMCP)`,
		"over HTTP, `_meta.allowed_dirs` on a call may add roots; without it, it can only narrow them (over stdio it always adds, as in fsMCP)"},
	{`--resources`, "`--resources`", `off`,
		`serve the roots' files as MCP resources (file:// URIs, subscriptions)`,
		"serve the roots' files and directories as MCP resources (`file://` URIs, a template, subscriptions); see [Resources](tools.md#resources)"},
	{`--shell MODE`, "`--shell on\\|sandboxed\\|off`", "`sandboxed` where the kernel has Landlock, else `on`; `off` on Windows",
		`fs_bash: sandboxed (its own user and mount namespace holding the roots, plus Landlock; the default where the kernel has Landlock), on (unconfined; the default elsewhere), off (no fs_bash; the default on Windows)`,
		"`fs_bash`'s confinement (see Security model): `sandboxed` runs the shell in its own user and mount namespace (bubblewrap when installed in a system directory, else the same done in Go), where only the roots and the system's program directories exist, with Landlock inside; where namespaces cannot be made, Landlock alone, and stderr's `shell_confinement=` says which; `off` removes `fs_bash`. On Windows fs_bash cannot run (it needs bash, process sessions and signals), so it is off and not listed, and `--shell on` is a start-up error. An explicit `sandboxed` on a kernel without Landlock, or on macOS and Windows (Landlock is Linux's), is a start-up error (status 2), never a silent fallback. The mode is stated on stderr at start"},
	{`--search-backend KIND`, "`--search-backend auto\\|rg\\|find\\|native`", "`auto`",
		`auto|rg|find|native: who serves fs_grep and fs_glob (default auto: rg when it is on PATH at start and can run, found through links and shims to the real binary; else, and when it stops working, the built-in native scanner)`,
		"who serves `fs_grep` and `fs_glob`: `auto` takes `rg` when it is on PATH at start (rg greps; `fs_glob`, which stats every match, is listed by the native walker, which is faster there: see Performance), else the built-in native scanner; `rg` uses rg for both; `find` lists files with `find(1)` (grep stays native). rg is found through links and shims (asdf, mise, a wrapper script) to the real ripgrep binary it hands over to, which searches run (see [Which rg runs](security.md)); an rg that cannot run, or lies in a DIR, leaves `auto` with the native scanner (same answers), and one WARN line on stderr says why, at start or at the search that met it. Named on stderr at start (`search_backend=rg rg=PATH rg_version=V rg_via=\"how PATH led to it\"`); `rg` without a usable rg on PATH is a start-up error (status 2), and a failure later is that search's error"},
	{`--index auto|on|off`, "`--index auto\\|on\\|off`", "`auto`",
		`a trigram index of each DIR in front of fs_grep, built in the background and kept in the user cache directory (default auto: for a DIR of 50,000 files or more)`,
		"a trigram index of each DIR in front of `fs_grep` (see [Index](index.md)): built in the background at start (progress and the result on stderr), kept in `$XDG_CACHE_HOME/fsmcp/` (else `~/.cache/fsmcp/`, the OS's cache directory elsewhere), reused across restarts. `auto` indexes a DIR of 50,000 files or more and writes nothing for a smaller one; `on` every DIR; `off` none. Answers are the same either way. On Linux each indexed DIR also holds one inotify watch per directory it searches, empty ones included, and one per indexed file that has a hard link outside the DIR, all within `--index-watches` for all DIRs together (a DIR whose directories do not fit, or on a network or FUSE file system, is not followed: its narrowed searches walk the tree instead, and the log says why); the other files are stat'ed again in the background (`--index-census`). A cache directory inside a DIR is refused: with `on` a start-up error (status 2), with `auto` a warning and no index. Roots given by the client are not indexed"},
	{`--index-watches N`, "`--index-watches N`", "half of `fs.inotify.max_user_watches`, less 1/64",
		`inotify watches the index may hold for all DIRs together, directories and files (default: half of fs.inotify.max_user_watches, less 1/64)`,
		"inotify watches the index may hold for all DIRs together (Linux): one per directory, empty ones included, and one per indexed file with a hard link outside the DIR (few in real trees). `fs.inotify.max_user_watches` bounds every program of the user together (an editor's file watching, a build's, `fs_watch`, a second fsmcp), so by default the index takes at most half of it, less 1/64, and leaves the rest to them. A DIR whose directories do not fit is not followed (its narrowed searches walk the tree, and the log says why); a file that gets no watch is left to the census (`--index-census`)"},
	{`--index-census DURATION`, "`--index-census DURATION`", "`30s`",
		`how long a write through a hard link made from outside a DIR may go unseen by indexed searches (default 30s; 0: every search stats each indexed file, exact and slower on big trees)`,
		"the index's one bounded case (Linux; see [Index](index.md)): a write through a hard link made to a file of a DIR from outside it, after the index began following the DIR, reaches no directory watch, so the index stats the files without a watch of their own again in the background (a census, at most a fifth of a core, while searches come) and a search trusts them while the census's last pass began at most this long ago, else stats them itself. Such a write is seen by every search that starts more than DURATION after the link was made; every change made through a name inside the DIRs is seen by the very next search. `0` makes every search stat every such file (about a second on a million files)"},
	{`--max-file-size SIZE`, "`--max-file-size SIZE`", "`10MiB`",
		`largest file a whole-file read or edit loads (default 10MiB)`,
		"largest file a whole-file load (image read, edit) takes, and what one call may load across all the files it names (or 4 bytes per `--max-output` character if that is more: `read_multiple_files`, `read_content` naming one big file forty times load it until then, and each further file is refused in one sentence); `512KiB`, `1GiB`, or bytes"},
	{`--max-output N`, "`--max-output N`", "`40000`",
		`characters in one tool result (default 40000)`,
		"characters in one tool result, its closing note included; longer results are cut at a whole line, match or path and say how to get the rest. Under Claude Code's 50,000-character threshold (above it, Claude Code saves the result to a file and shows the model a 2 KB preview, which loses the note), and declared to it per tool as `_meta[\"anthropic/maxResultSizeChars\"]` (fsmcp profile). A host known to cut results shorter (Copilot CLI, Codex, Gemini CLI) gets answers within its own limit, in its unit ([Answer size per host](clients.md#answer-size-per-host))"},
	{`--timeout DURATION`, "`--timeout DURATION`", "`30s`",
		`time limit of one tool call (default 30s)`,
		`time limit of one tool call`},
	{`--max-results N`, "`--max-results N`", "`1000`",
		`entries in one search or listing (default 1000)`,
		`entries in one search or listing`},
	{`--max-searches N`, "`--max-searches N`", `the cores, at least 2`,
		`searches (fs_grep, fs_glob, the profiles' search tools) running at once; more wait their turn, each session (or, without one, each client address) in turn (default: the cores, at least 2)`,
		"searches running at once in the server: `fs_grep`, `fs_glob`, and every profile's search tool (reference `search_files`, peekaboo `search_path` and `search_content`, filesystem-mcp `search_files`, LocalCowork `filesystem.search_files`), all through one admission. More wait their turn in a queue, the queues served in turn, so one client's burst cannot starve another's search. A queue is an MCP session's (stdio, or an HTTP session: `--max-sessions` bounds how many), and for requests that belong to no session (2026-07-28 stateless requests, plain JSON-RPC over HTTP) their client address's: each such request is a session of its own to the SDK, so one queue per request would let a flood take every turn. Clients behind one address (a proxy, every local client on loopback) that send no session share that one queue. Reads, listings and edits never wait behind searches. A queued search's `--timeout` starts when it runs"},
	{`--search-wait DURATION`, "`--search-wait DURATION`", "`1m`",
		`longest a search waits for its turn before it is refused as busy; --timeout counts from its start, not from the wait (default 1m)`,
		"the longest a search waits for its turn; past it the call fails with `the server is busy: N searches are running and this one waited 1m0s for a turn; retry in a moment`, never with a partial answer. A client that gives up on a call sooner (the TypeScript SDK's default is 60 s, for the wait and the search together) is better served by a shorter wait"},
	{`--max-sessions N`, "`--max-sessions N`", "`64`",
		`HTTP sessions open at once; one more is answered 503 (default 64)`,
		"HTTP sessions open at once. A client that would open one more gets `503 Service Unavailable` (with `Retry-After`) saying so; ending a session (HTTP `DELETE`) or its going idle frees its place"},
	{`--session-idle DURATION`, "`--session-idle DURATION`", "`30m`",
		`close an HTTP session that sent nothing for this long, ending its shell and watchers (default 30m)`,
		`an HTTP session that sent nothing for this long is closed, ending its shell, watches and subscriptions`},
	{`--log-level LEVEL`, "`--log-level LEVEL`", "`info`",
		`debug|info|warn|error (default info); logs go to stderr; debug logs each tool call (name, duration, outcome)`,
		"`debug`, `info`, `warn`, `error`; logs go to stderr only, never stdout. `debug` logs each tool call: name, duration, outcome (`ok`, `isError`, `input required` for a 2026-07-28 call answered with a question for the client's roots, or `protocol error` with its code)"},
	{`--audit-log FILE`, "`--audit-log FILE`", "env `FSMCP_AUDIT_LOG`; none",
		`append one JSON line per tool call to FILE (env FSMCP_AUDIT_LOG): tool, argument names, path arguments, duration, outcome`,
		"append one JSON line per tool call to FILE: time, session id (HTTP), tool, the argument names, the values of path-like arguments (`path`, `file_path`, `source`, ...), duration, outcome, and for a failure the error's kind and path (never its text, which can quote contents). Other argument values are left out on purpose: they carry file contents, edits and shell commands, and an audit trail must not become a second copy of what it audits. Opened append-only, mode 0600; a symlink or stdout is refused (status 2)"},
	{`--journal on|off`, "`--journal on\\|off`", "`on` (env `FSMCP_JOURNAL`)",
		`keep a journal of every change for undo (default on); it lives in $XDG_STATE_HOME/fsmcp/journal (else ~/.local/state; %LOCALAPPDATA% on Windows), outside the roots`,
		"keep the [change journal](journal.md) for undo. Its directory is `$XDG_STATE_HOME/fsmcp/journal/` (else `~/.local/state/fsmcp/journal/`; on Windows `%LOCALAPPDATA%\\fsmcp\\journal\\`). When that lies inside a DIR (`fsmcp ~`), changes in that DIR are not journaled and a warning says so; so are all changes when neither `$XDG_STATE_HOME` nor `$HOME` (on Windows `%LOCALAPPDATA%`) is set (a host that passes only `PATH`); with an explicit `--journal on` either is a start-up error (status 2)"},
	{`--journal-size SIZE`, "`--journal-size SIZE`", "`512MiB`",
		`the journal's bound per root, oldest changes out first (default 512MiB)`,
		`the journal's bound per root (log and kept contents); oldest changes leave first`},
	{`--journal-age DURATION`, "`--journal-age DURATION`", "`168h`",
		`changes older than this leave the journal (default 168h)`,
		`changes older than this leave the journal`},
	{`--journal-tools`, "`--journal-tools`", `off`,
		`serve fs_history and fs_undo in other profiles too (the fsmcp profile always has them)`,
		"serve `fs_history` and `fs_undo` in the other profiles too (the fsmcp profile always has them)"},
	{`--version`, "`--version`", ``,
		`print the version, and the rg searches use (its path, version and how PATH led to it)`,
		"prints `fsmcp VERSION`, then the rg searches would use (`rg: /usr/bin/rg (ripgrep 13.0.0), on PATH as ~/.asdf/shims/rg, a script run by /usr/bin/env bash that hands over to /usr/bin/rg`), or why none can be used"},
	{`--help`, "`--help`", ``,
		`print this help`,
		``},
}

// flagList is --help's list of flags: each flag's usage, then its words
// wrapped beside it.
func flagList() string {
	const col, width = 26, 98
	var b strings.Builder
	for _, f := range flagDocs {
		line := "  " + f.Usage
		if len(line) >= col {
			line += " "
		}
		for _, w := range strings.Fields(f.Help) {
			switch {
			case len(line) < col:
				line += strings.Repeat(" ", col-len(line)) + w
			case len(line)+1+len(w) > width:
				b.WriteString(line + "\n")
				line = strings.Repeat(" ", col) + w
			default:
				line += " " + w
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// flagTable is docs/flags.md's table, made from flagDocs.
func flagTable() string {
	var b strings.Builder
	b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
	for _, f := range flagDocs {
		b.WriteString("| " + f.Name + " | " + f.Default + " | " + f.Doc + " |\n")
	}
	return b.String()
}
