package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/profiles/fsmcp"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

// usageHead and usageTail frame --help's list of flags, which is made
// from flagDocs (options_doc.go).
const usageHead = `fsmcp: safe, fast file access for AI agents over MCP.

Usage: fsmcp [flags] [DIR ...]
       fsmcp history DIR [-v] [--diff ID] [--last N] [--session LABEL] [--since 10m]
       fsmcp undo DIR --last N | --id ID | --session LABEL | --since 10m [--force]
       fsmcp redo DIR [--last N | --id ID]
       fsmcp run [--dir DIR] -- COMMAND [ARGS...]       (journal any command)
       fsmcp hooks install|uninstall|status claude-code [--project|--user]

The DIRs (and every --allowed-dir) are the allowed roots. With none, fsmcp
fails closed: the roots come from the client (its MCP roots, or
_meta.allowed_dirs on a call), and a call with neither is refused. fsmcp
never serves the current directory unasked; name it (fsmcp .) to serve it.

Flags:
`

const usageTail = `
Each limit can also be set in the environment as FSMCP_<NAME>, e.g.
FSMCP_MAX_OUTPUT=50000; a flag wins over the environment.
`

// usage is --help's text.
func usage() string { return usageHead + flagList() + usageTail }

var errHelp = errors.New("help requested")

// options is the parsed command line: the one configuration. What the
// server and the runtime read is server (toolkit.Settings inside it),
// what HTTP serving reads is http; main fills in only what it builds from
// them (the searcher, the audit log) and passes both on whole.
type options struct {
	server server.Config
	http   server.ServeOptions

	roots      []string
	rootsGiven bool // DIRs or --allowed-dir given (none: the client's roots)
	transport  string
	// searchBackend is auto, rg, find or native (driver.Select checks it).
	searchBackend string
	// index is auto, on or off (--index); indexWatches the inotify
	// watches it may hold (--index-watches; 0: its share of the user's).
	index        string
	indexWatches int64
	// indexCensus bounds how long a write through a hard link made from
	// outside the DIRs may go unseen by the index (--index-census; < 0:
	// every search stats the files that could be so written).
	indexCensus time.Duration
	// maxSearches and searchWait bound the search queue (queue.New):
	// searches at once, and how long one may wait for a turn.
	maxSearches int
	searchWait  time.Duration
	logLevel    slog.Level
	auditLog    string // --audit-log or FSMCP_AUDIT_LOG
	version     bool
	// journalTools serves fs_history and fs_undo in every profile.
	journalTools bool
	// journal is the change journal's configuration; journalOff turns it
	// off (--journal off).
	journal    journal.Config
	journalOff bool
	// journalUnset is why the default journal could not be placed (then
	// journalOff is set, and the start-up log says why).
	journalUnset string
}

// newFlagSet is fsmcp's flag set, one flag per row of flagRows; each
// flag's text is kept as given, for parseArgs to settle.
func newFlagSet() (*flag.FlagSet, map[string]*flagValue) {
	fs := flag.NewFlagSet("fsmcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	given := map[string]*flagValue{}
	for _, r := range flagRows {
		if r.name == "help" {
			continue
		}
		v := &flagValue{boolean: r.boolean, repeat: r.repeat}
		given[r.name] = v
		fs.Var(v, r.name, "")
	}
	return fs, given
}

// parseArgs reads flags and DIRs in any order, settles each flag from
// its row (the flag, else its environment variable, else its default),
// then the rules across flags.
func parseArgs(args []string, getenv func(string) string) (*options, error) {
	o := &options{}
	fs, given := newFlagSet()

	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			positional = append(positional, args[1:]...)
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	dirs := given["allowed-dir"].text
	if slices.Contains(positional, "") {
		return nil, errors.New(`a DIR argument is empty (""), which would allow the working directory; give the directory's path (an unset variable in the host's config?)`)
	}
	if slices.Contains(dirs, "") {
		return nil, errors.New("--allowed-dir is empty, which would allow the working directory; give the directory's path (an unset variable in the host's config?)")
	}
	roots, err := expandHome(append(positional, dirs...), userHome)
	if err != nil {
		return nil, err
	}
	o.roots = roots
	o.rootsGiven = len(o.roots) > 0

	if err := settle(o, flagRows, given, getenv); err != nil {
		return nil, err
	}
	set := map[string]bool{} // the flags given on the command line
	for name, v := range given {
		set[name] = v.given()
	}
	if err := listenMeansHTTP(set, o); err != nil {
		return nil, err
	}
	// The token's rule reads its flags' own values and environment.
	o.http.AuthToken = given["auth-token"].last()
	o.http.NoAuth, _ = strconv.ParseBool(given["no-auth"].last())
	if err := o.resolveAuth(set, getenv); err != nil {
		return nil, err
	}
	if o.journalTools && !slices.ContainsFunc(o.server.Profiles, func(t *toolkit.Table) bool { return t.Name == fsmcp.Name }) {
		o.server.Profiles = append(o.server.Profiles, fsmcp.JournalTable())
	}
	if !o.rootsGiven {
		for _, t := range o.server.Profiles {
			if t.DefaultRoots == nil {
				continue
			}
			dirs, err := t.DefaultRoots(getenv)
			if err != nil {
				return nil, fmt.Errorf("--profile %s: %v", t.Name, err)
			}
			if len(dirs) > 0 {
				o.roots, o.rootsGiven = dirs, true
				break
			}
		}
	}
	if err := o.placeJournal(getenv); err != nil {
		return nil, err
	}
	o.server.Name, o.server.Version, o.server.Getenv = "fsmcp", buildVersion(), getenv
	// With no DIR given, the client's MCP roots are the roots.
	o.server.ClientRoots = !o.rootsGiven
	// Over stdio _meta.allowed_dirs adds to the DIRs, as in fsMCP: the
	// host that started fsmcp could have named any directory anyway.
	o.server.TrustMeta = o.server.TrustMeta || o.transport == "stdio"
	return o, nil
}

// settle gives each of rows that has a parse its value (given on the
// command line, else in the environment, else its default) and parses it
// into o.
func settle(o *options, rows []flagRow, given map[string]*flagValue, getenv func(string) string) error {
	for _, r := range rows {
		if r.parse == nil {
			continue
		}
		v, src := r.value(given[r.name], getenv)
		if err := r.parse(o, v, src); err != nil {
			return err
		}
	}
	return nil
}

// resolveAuth settles --auth-token and --no-auth, each from its flag or
// else its env. A flag wins over the other's env; both from the same
// source contradict each other. set holds the flags given.
func (o *options) resolveAuth(set map[string]bool, getenv func(string) string) error {
	if set["auth-token"] && set["no-auth"] && o.http.NoAuth {
		return errors.New("--auth-token and --no-auth contradict each other; give one")
	}
	tokenEnv, noAuthEnv := false, false
	if !set["auth-token"] && !(set["no-auth"] && o.http.NoAuth) {
		o.http.AuthToken = getenv("FSMCP_AUTH_TOKEN")
		tokenEnv = o.http.AuthToken != ""
	}
	if !set["no-auth"] && !set["auth-token"] {
		if v := getenv("FSMCP_NO_AUTH"); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("FSMCP_NO_AUTH: %q is not 1 or 0", v)
			}
			o.http.NoAuth, noAuthEnv = b, b
		}
	}
	if tokenEnv && noAuthEnv {
		return errors.New("FSMCP_AUTH_TOKEN and FSMCP_NO_AUTH=1 contradict each other; set one")
	}
	return nil
}

// parseSize reads a byte count: 1048576, 512KiB, 10MiB, 1GiB (KB/MB/GB and
// K/M/G mean the same powers of 1024).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := int64(1)
	num := strings.TrimSpace(s)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size (try 1048576 or 10MiB)", s)
	}
	return n * mult, nil
}

func parseCount(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive whole number", s)
	}
	return n, nil
}

func parseInt(s string) (int, error) {
	n, err := parseCount(s)
	return int(n), err
}

func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a duration (try 30s or 2m)", s)
	}
	return d, nil
}

// parseBound is a duration where 0 means none (-1).
func parseBound(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (try 10s, or 0)", s)
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}

// parseJournal settles --journal, --journal-size and --journal-age from
// the values given (fsmcp history and run take them so), their
// environment variables and their defaults, and places the journal.
func (o *options) parseJournal(mode, size, age string, getenv func(string) string) error {
	given := map[string]*flagValue{}
	var rows []flagRow
	for name, v := range map[string]string{"journal": mode, "journal-size": size, "journal-age": age} {
		given[name] = &flagValue{text: []string{v}}
	}
	for _, name := range []string{"journal", "journal-size", "journal-age"} {
		rows = append(rows, *rowNamed(name))
	}
	if err := settle(o, rows, given, getenv); err != nil {
		return err
	}
	return o.placeJournal(getenv)
}

// placeJournal finds the journal's directory when it is on.
func (o *options) placeJournal(getenv func(string) string) error {
	if o.journalOff {
		return nil
	}
	var err error
	if o.journal.Dir, err = journal.DefaultDir(getenv); err != nil && !o.journal.Strict {
		// No home and no XDG_STATE_HOME (a host that passes only PATH):
		// serve unjournaled and say so, as for a journal inside a root.
		o.journalOff, o.journalUnset = true, err.Error()
		return nil
	}
	return err
}

func parseOnOff(s string) (bool, error) {
	switch s {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("must be on or off, not %q", s)
}

// expandHome expands each path's leading ~ (sandbox.ExpandHomeFrom, the
// one rule) with the home directory from home.
func expandHome(paths []string, home func() (string, error)) ([]string, error) {
	out := make([]string, len(paths))
	for i, p := range paths {
		var err error
		if out[i], err = sandbox.ExpandHomeFrom(p, home); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// listenMeansHTTP makes --listen without --transport mean http: nobody
// gives an address to a stdio server. --transport stdio with --listen is
// a contradiction. set holds the flags given.
func listenMeansHTTP(set map[string]bool, o *options) error {
	if !set["listen"] {
		return nil
	}
	if !set["transport"] {
		o.transport = "http"
		return nil
	}
	if o.transport != "http" {
		return errors.New("--listen is for --transport http; drop one of them")
	}
	return nil
}

// userHome is os.UserHomeDir; a seam for tests.
var userHome = os.UserHomeDir
