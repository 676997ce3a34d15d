package main

import (
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/shell"
	"github.com/fsmcp/fsmcp/toolkit"
)

func TestParseArgs(t *testing.T) {
	env := map[string]string{"FSMCP_MAX_OUTPUT": "500", "FSMCP_TIMEOUT": "5s"}
	o, err := parseArgs([]string{"/a", "--read-only", "/b", "--allowed-dir", "/c", "--timeout", "1m", "--max-file-size", "2MiB"}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.roots, ",") != "/a,/b,/c" || !o.server.ReadOnly {
		t.Fatalf("roots %v readOnly %v", o.roots, o.server.ReadOnly)
	}
	if o.server.Limits.Timeout != time.Minute {
		t.Errorf("flag should win over env: timeout %v", o.server.Limits.Timeout)
	}
	if o.server.Limits.MaxOutput != 500 || o.server.Limits.MaxFileSize != 2<<20 || o.server.Limits.MaxResults != 1000 {
		t.Errorf("limits %+v", o.server.Limits)
	}
	o, _ = parseArgs(nil, func(string) string { return "" })
	// No DIR: no root (fail closed), never the current directory.
	if len(o.roots) != 0 || o.rootsGiven || o.transport != "stdio" {
		t.Errorf("defaults: %+v", o)
	}
	for _, bad := range [][]string{{"--transport", "ws"}, {"--max-output", "-1"}, {"--timeout", "soon"}, {"--max-file-size", "ten"}, {"--nope"}} {
		if _, err := parseArgs(bad, func(string) string { return "" }); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, err := parseArgs(nil, func(k string) string { return map[string]string{"FSMCP_MAX_RESULTS": "x"}[k] }); err == nil || !strings.Contains(err.Error(), "FSMCP_MAX_RESULTS") {
		t.Errorf("bad env not named: %v", err)
	}
}

func TestParseShell(t *testing.T) {
	none := func(string) string { return "" }
	for _, m := range []string{"on", "sandboxed", "off"} {
		o, err := parseArgs([]string{"--shell", m}, none)
		if err != nil || string(o.server.Shell) != m {
			t.Errorf("--shell %s: %v %v", m, o, err)
		}
	}
	if _, err := parseArgs([]string{"--shell", "yes"}, none); err == nil {
		t.Error("--shell yes accepted")
	}
	o, _ := parseArgs(nil, none)
	if o.server.Shell != string(shell.DefaultMode()) {
		t.Errorf("default shell %q, want %q", o.server.Shell, shell.DefaultMode())
	}
}

func TestParseAuth(t *testing.T) {
	for _, c := range []struct {
		args   []string
		env    map[string]string
		token  string
		noAuth bool
		bad    bool
	}{
		{args: nil, env: nil},
		{args: []string{"--auth-token", "t"}, token: "t"},
		{args: []string{"--no-auth"}, noAuth: true},
		{env: map[string]string{"FSMCP_AUTH_TOKEN": "e"}, token: "e"},
		{env: map[string]string{"FSMCP_NO_AUTH": "1"}, noAuth: true},
		{args: []string{"--no-auth"}, env: map[string]string{"FSMCP_AUTH_TOKEN": "e"}, noAuth: true},
		{args: []string{"--auth-token", "t"}, env: map[string]string{"FSMCP_NO_AUTH": "1"}, token: "t"},
		{args: []string{"--auth-token", "t", "--no-auth"}, bad: true},
		{env: map[string]string{"FSMCP_AUTH_TOKEN": "e", "FSMCP_NO_AUTH": "1"}, bad: true},
		{env: map[string]string{"FSMCP_NO_AUTH": "maybe"}, bad: true},
	} {
		o, err := parseArgs(c.args, func(k string) string { return c.env[k] })
		if c.bad {
			if err == nil {
				t.Errorf("%v %v accepted", c.args, c.env)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v %v: %v", c.args, c.env, err)
			continue
		}
		if o.http.AuthToken != c.token || o.http.NoAuth != c.noAuth {
			t.Errorf("%v %v: token %q noAuth %v; want %q %v", c.args, c.env, o.http.AuthToken, o.http.NoAuth, c.token, c.noAuth)
		}
	}
}

func TestParseProfile(t *testing.T) {
	none := func(string) string { return "" }
	o, err := parseArgs(nil, none)
	if err != nil || len(o.server.Profiles) != 1 || o.server.Profiles[0].Name != "fsmcp" {
		t.Fatalf("default profile: %v %v", o, err)
	}
	o, err = parseArgs(nil, func(k string) string { return map[string]string{"FSMCP_PROFILE": "fsmcp,fsmcp"}[k] })
	if err != nil || len(o.server.Profiles) != 1 {
		t.Fatalf("FSMCP_PROFILE=fsmcp,fsmcp: %v %v", o, err)
	}
	_, err = parseArgs([]string{"--profile", "nope"}, none)
	if err == nil || !strings.Contains(err.Error(), `--profile: unknown profile "nope" (known: `) || !strings.Contains(err.Error(), "fsmcp") {
		t.Errorf("unknown profile: %v", err)
	}
	_, err = parseArgs(nil, func(k string) string { return map[string]string{"FSMCP_PROFILE": "fsmcp,"}[k] })
	if err == nil || !strings.HasPrefix(err.Error(), "FSMCP_PROFILE: ") {
		t.Errorf("empty name from env: %v", err)
	}
}

// A profile's own variable gives the roots when no DIR is named
// (LOCALCOWORK_ALLOWED_PATHS, a path list); a DIR still wins.
func TestProfileDefaultRoots(t *testing.T) {
	env := map[string]string{"LOCALCOWORK_ALLOWED_PATHS": "/a:/b"}
	getenv := func(k string) string { return env[k] }
	o, err := parseArgs([]string{"--profile", "localcowork"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.roots, ",") != "/a,/b" || !o.rootsGiven {
		t.Errorf("roots %v given %v", o.roots, o.rootsGiven)
	}
	if o, _ := parseArgs([]string{"--profile", "localcowork", "/c"}, getenv); strings.Join(o.roots, ",") != "/c" {
		t.Errorf("a DIR should win: %v", o.roots)
	}
	if o, _ := parseArgs(nil, getenv); len(o.roots) != 0 || o.rootsGiven {
		t.Errorf("another profile took the variable: %v", o.roots)
	}
}

// TestEmptyDirArgumentIsAUsageError: an empty DIR, --allowed-dir= or an
// empty entry in LOCALCOWORK_ALLOWED_PATHS ("a:", ":a", "a::b") — an unset
// ${VAR} in a host's config — is refused, naming it, instead of serving
// the working directory.
func TestEmptyDirArgumentIsAUsageError(t *testing.T) {
	none := func(string) string { return "" }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{""}, "a DIR argument is empty"},
		{[]string{"/a", ""}, "a DIR argument is empty"},
		{[]string{"--", ""}, "a DIR argument is empty"},
		{[]string{"--allowed-dir="}, "--allowed-dir is empty"},
		{[]string{"--allowed-dir", "", "/a"}, "--allowed-dir is empty"},
	} {
		if _, err := parseArgs(c.args, none); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.args, err, c.want)
		}
	}
	for _, v := range []string{"/a:", ":/a", "/a::/b", ":"} {
		getenv := func(k string) string { return map[string]string{"LOCALCOWORK_ALLOWED_PATHS": v}[k] }
		_, err := parseArgs([]string{"--profile", "localcowork"}, getenv)
		if err == nil || !strings.Contains(err.Error(), "LOCALCOWORK_ALLOWED_PATHS") || !strings.Contains(err.Error(), "empty entry") {
			t.Errorf("LOCALCOWORK_ALLOWED_PATHS=%q: got %v", v, err)
		}
	}
}

// The load flags (issue 25, issue 18 item 11): each from its flag, else its
// environment variable, else its default; a bad value is a usage error
// naming the setting.
func TestLoadFlags(t *testing.T) {
	env := map[string]string{"FSMCP_SEARCH_WAIT": "10s", "FSMCP_MAX_SESSIONS": "9"}
	o, err := parseArgs([]string{"--max-searches", "3", "--session-idle", "2m", "--max-sessions", "5", "/a"}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if o.maxSearches != 3 || o.searchWait != 10*time.Second || o.http.MaxSessions != 5 || o.http.SessionIdle != 2*time.Minute {
		t.Fatalf("got searches %d wait %v sessions %d idle %v", o.maxSearches, o.searchWait, o.http.MaxSessions, o.http.SessionIdle)
	}
	o, _ = parseArgs(nil, func(string) string { return "" })
	if o.http.MaxSessions != server.DefaultMaxSessions || o.http.SessionIdle != server.DefaultSessionIdle || o.maxSearches < 2 || o.searchWait != time.Minute {
		t.Fatalf("defaults: %+v", o)
	}
	for _, bad := range [][]string{{"--max-sessions", "0"}, {"--session-idle", "never"}, {"--max-searches", "-2"}, {"--search-wait", "x"}} {
		if _, err := parseArgs(bad, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

func TestParseArgsHomeAndListen(t *testing.T) {
	defer func(h func() (string, error)) { userHome = h }(userHome)
	userHome = func() (string, error) { return "/home/me", nil }
	none := func(string) string { return "" }
	o, err := parseArgs([]string{"~/a", "--allowed-dir", "~", "--listen", "127.0.0.1:0"}, none)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.roots, ",") != "/home/me/a,/home/me" {
		t.Errorf("roots %q", o.roots)
	}
	if o.transport != "http" {
		t.Errorf("--listen alone: transport %q, want http", o.transport)
	}
	if o, _ := parseArgs([]string{"/a", "--transport", "http", "--listen", ":0"}, none); o == nil || o.transport != "http" {
		t.Errorf("--transport http --listen: %+v", o)
	}
	if _, err := parseArgs([]string{"/a", "--transport", "stdio", "--listen", ":0"}, none); err == nil {
		t.Error("--transport stdio --listen accepted")
	}
	if o, _ := parseArgs([]string{"/a"}, none); o == nil || o.transport != "stdio" {
		t.Errorf("default transport: %+v", o)
	}
}

// TestParseIndex: --index is auto by default, takes on and off, and
// anything else is a usage error naming the choices.
func TestParseIndex(t *testing.T) {
	none := func(string) string { return "" }
	if o, err := parseArgs(nil, none); err != nil || o.index != "auto" {
		t.Fatalf("default --index: %v %v", o, err)
	}
	for _, m := range []string{"auto", "on", "off"} {
		if o, err := parseArgs([]string{"--index", m}, none); err != nil || o.index != m {
			t.Errorf("--index %s: %v %v", m, o, err)
		}
	}
	if _, err := parseArgs([]string{"--index", "yes"}, none); err == nil || !strings.Contains(err.Error(), "auto, on or off") {
		t.Errorf("--index yes: %v", err)
	}
}

// TestShellModeOffIsShells: toolkit names shell.ModeOff by its name (it
// does not import shell), so the two stay one.
func TestShellModeOffIsShells(t *testing.T) {
	if toolkit.ShellModeOff != string(shell.ModeOff) {
		t.Errorf("toolkit.ShellModeOff = %q, shell.ModeOff = %q", toolkit.ShellModeOff, shell.ModeOff)
	}
}
