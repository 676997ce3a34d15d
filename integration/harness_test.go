// Package integration drives the built fsmcp binary through the go-sdk's
// MCP client, over stdio and over Streamable HTTP, once with rg on PATH and
// once without it.
//
// FSMCP_TEST_MODES picks the PATH modes ("rg,norg" by default); the rg mode
// is skipped, loudly, when rg is not installed.
package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// binary is the fsmcp binary built once for the whole run.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fsmcp-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "fsmcp")
	// The servers' change journals go here, not into the user's state.
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	build := exec.Command("go", "build", "-o", binary, "..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building fsmcp:", err)
		os.Exit(1)
	}
	if _, err := exec.LookPath("rg"); err != nil && wantMode("rg") {
		fmt.Fprintln(os.Stderr, "\n*** SKIPPED: rg is not on PATH, so the with-rg half of the integration tests does not run. Install ripgrep to run it. ***")
	}
	if beforeRun != nil {
		if err := beforeRun(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	if noRgPath != "" {
		os.RemoveAll(noRgPath) // links only: nothing they point to goes
	}
	os.Exit(code)
}

// mode is a PATH the server runs with.
type mode struct {
	name string // "rg" or "norg"
	path string
}

func wantMode(name string) bool {
	modes := os.Getenv("FSMCP_TEST_MODES")
	if modes == "" {
		modes = "rg,norg"
	}
	for _, m := range strings.Split(modes, ",") {
		if strings.TrimSpace(m) == name {
			return true
		}
	}
	return false
}

var (
	noRgOnce sync.Once
	noRgPath string
	noRgErr  error
)

// pathWithoutRg makes a directory of links to every program on PATH but rg.
func pathWithoutRg() (string, error) {
	noRgOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fsmcp-norg-path-")
		if err != nil {
			noRgErr = err
			return
		}
		for _, d := range filepath.SplitList(os.Getenv("PATH")) {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if e.Name() == "rg" {
					continue
				}
				link := filepath.Join(dir, e.Name())
				if _, err := os.Lstat(link); err == nil {
					continue // an earlier PATH entry wins, as in a shell
				}
				os.Symlink(filepath.Join(d, e.Name()), link)
			}
		}
		noRgPath = dir
	})
	return noRgPath, noRgErr
}

// modes returns the PATH modes to run, skipping what cannot run here.
func modes(t *testing.T) []mode {
	t.Helper()
	var out []mode
	if wantMode("rg") {
		if _, err := exec.LookPath("rg"); err == nil {
			out = append(out, mode{"rg", os.Getenv("PATH")})
		}
	}
	if wantMode("norg") {
		p, err := pathWithoutRg()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, mode{"norg", p})
	}
	if len(out) == 0 {
		t.Skip("SKIPPED: no PATH mode to run (FSMCP_TEST_MODES, and rg not installed)")
	}
	return out
}

// transport is how a test connects to a fresh server.
type transport struct {
	name    string
	connect func(t *testing.T, m mode, args ...string) *mcp.ClientSession
}

var transports = []transport{{"stdio", connectStdio}, {"http", connectHTTP}}

// each runs f once per PATH mode and transport, as subtests.
func each(t *testing.T, f func(t *testing.T, connect func(args ...string) *mcp.ClientSession)) {
	for _, m := range modes(t) {
		for _, tr := range transports {
			t.Run(m.name+"/"+tr.name, func(t *testing.T) {
				f(t, func(args ...string) *mcp.ClientSession { return tr.connect(t, m, args...) })
			})
		}
	}
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "fsmcp-integration", Version: "1"}, nil)
}

func connectStdio(t *testing.T, m mode, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "PATH="+m.path)
	cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// serving matches the log line that gives the HTTP endpoint.
var serving = regexp.MustCompile(`url=(http://\S+/mcp)`)

// connectHTTP connects over Streamable HTTP with a session: the
// initialize handshake of 2025-11-25, the era whose state (fs_bash's
// directory, watches, roots) the session carries. connectHTTPAt picks the
// protocol version (2026-07-28: the stateless era, era_test.go).
func connectHTTP(t *testing.T, m mode, args ...string) *mcp.ClientSession {
	t.Helper()
	url, _ := startHTTP(t, m, args...)
	return connectHTTPAt(t, url, legacyVersion)
}

// legacyVersion is the newest protocol version with sessions.
const legacyVersion = "2025-11-25"

// sessionEra connects a go-sdk client with the initialize handshake: the
// tests of what a session carries (its shell, watches, the session cap)
// use it, as every older client does.
var sessionEra = &mcp.ClientSessionOptions{ProtocolVersion: legacyVersion}

func connectHTTPAt(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect over http at %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("connected over http at %s, want %s", got, version)
	}
	return cs
}

// startHTTP starts the server on a free loopback port and returns its /mcp
// URL and the process. Unless args give --auth-token, it runs with
// --no-auth.
func startHTTP(t *testing.T, m mode, args ...string) (string, *exec.Cmd) {
	t.Helper()
	if !slices.Contains(args, "--auth-token") {
		args = append([]string{"--no-auth"}, args...)
	}
	url, _, cmd := launchHTTP(t, m, args...)
	return url, cmd
}

// bearerLine matches the line that gives the token fsmcp made.
var bearerLine = regexp.MustCompile(`Authorization: Bearer (\S+)`)

// launchHTTP starts the server as args say and returns its /mcp URL, the
// token it printed (if it made one) and the process.
func launchHTTP(t *testing.T, m mode, args ...string) (string, string, *exec.Cmd) {
	t.Helper()
	args = append([]string{"--transport", "http", "--listen", "127.0.0.1:0"}, args...)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "PATH="+m.path, "FSMCP_AUTH_TOKEN=", "FSMCP_NO_AUTH=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute): // only bounds a hang
			cmd.Process.Kill()
			<-done
		}
	})
	urlc := make(chan string, 1)
	var token string  // written before the URL is sent
	var said []string // what it said before it exited, read after urlc closes
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if !sent && len(said) < 50 {
				said = append(said, line)
			}
			if m := bearerLine.FindStringSubmatch(line); m != nil && !sent {
				token = m[1]
			}
			if !sent {
				if m := serving.FindStringSubmatch(line); m != nil {
					urlc <- m[1]
					sent = true
				}
			}
		}
		if !sent {
			close(urlc)
		}
	}()
	select {
	case url, ok := <-urlc:
		if !ok {
			cmd.Wait()
			t.Fatalf("fsmcp exited (%v) before serving http; it said:\n%s", cmd.ProcessState, strings.Join(said, "\n"))
		}
		return url, token, cmd
	case <-time.After(time.Minute): // only bounds a hang
		t.Fatal("fsmcp did not start serving http within a minute")
	}
	return "", "", nil
}

// testLog forwards the server's stderr to the test log.
type testLog struct {
	t      *testing.T
	prefix string
	mu     sync.Mutex
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer func() { recover() }() // the test may have ended
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.t.Log(l.prefix + line)
	}
	return len(p), nil
}

var _ io.Writer = (*testLog)(nil)

// call runs a tool and returns its text and whether it was an isError
// result; a protocol error fails the test.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := callRaw(cs, name, args, nil)
	if err != nil {
		t.Fatalf("%s(%v): protocol error: %v", name, args, err)
	}
	return testenv.Text(res), res.IsError
}

func callRaw(cs *mcp.ClientSession, name string, args map[string]any, meta map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	if meta != nil {
		p.Meta = meta
	}
	return cs.CallTool(ctx, p)
}

// mustCall runs a tool that must succeed.
func mustCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	out, isErr := call(t, cs, name, args)
	if isErr {
		t.Fatalf("%s(%v) failed: %s", name, args, out)
	}
	return out
}

// mustFail runs a tool that must return an isError result containing want.
func mustFail(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, want string) {
	t.Helper()
	out, isErr := call(t, cs, name, args)
	if !isErr {
		t.Fatalf("%s(%v) succeeded, want an error containing %q; got: %s", name, args, want, out)
	}
	if !strings.Contains(out, want) {
		t.Fatalf("%s(%v) error = %q, want it to contain %q", name, args, out, want)
	}
}
