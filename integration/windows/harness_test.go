//go:build windows

package windows

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tree is the fixture the suite works on:
//
//	base\
//	  root\                  the allowed directory
//	    a.txt, sub\b.txt, crlf.txt (CRLF endings, no final newline)
//	    ünï cødé\naïve file.txt
//	    long\<six 50-character names>\long.txt, past 260 characters
//	  root_evil\x.txt        a sibling whose name starts with the root's
//	  outside\secret.txt     must never be reached
type tree struct {
	base, root, outside, evil, long string
}

const needle = "needle"

func newTree(t *testing.T) *tree {
	t.Helper()
	base := tempDir(t)
	tr := &tree{
		base:    base,
		root:    filepath.Join(base, "root"),
		outside: filepath.Join(base, "outside"),
		evil:    filepath.Join(base, "root_evil"),
	}
	long := []string{"long"}
	for i := range 6 {
		long = append(long, strings.Repeat(string(rune('a'+i)), 50))
	}
	tr.long = filepath.Join(append([]string{tr.root}, append(long, "long.txt")...)...)
	for rel, content := range map[string]string{
		`root\a.txt`:                   "alpha\n" + needle + " one\nbeta\n",
		`root\sub\b.txt`:               "b " + needle + "\n",
		`root\crlf.txt`:                "one\r\ntwo " + needle + "\r\nthree",
		`root\ünï cødé\naïve file.txt`: "unicode " + needle + "\n",
		`root_evil\x.txt`:              "evil " + needle + "\n",
		`outside\secret.txt`:           "top secret " + needle + "\n",
	} {
		write(t, filepath.Join(base, rel), content)
	}
	write(t, tr.long, "long "+needle+"\n")
	if len(tr.long) <= 260 {
		t.Fatalf("the long path is %d characters, want more than 260", len(tr.long))
	}
	return tr
}

// path is a name below the root.
func (tr *tree) path(rel string) string { return filepath.Join(tr.root, filepath.FromSlash(rel)) }

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// transport is how a test connects to a fresh server.
type transport struct {
	name    string
	connect func(t *testing.T, args ...string) *mcp.ClientSession
}

var transports = []transport{{"stdio", connectStdio}, {"http", connectHTTP}}

// each runs f once per transport, as subtests.
func each(t *testing.T, f func(t *testing.T, connect func(args ...string) *mcp.ClientSession)) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			f(t, func(args ...string) *mcp.ClientSession { return tr.connect(t, args...) })
		})
	}
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "fsmcp-windows", Version: "1"}, nil)
}

// command is fsmcp.exe with args, its journal and index cache in the
// run's own %LOCALAPPDATA%.
func command(args ...string) *exec.Cmd {
	cmd := exec.Command(fsmcpExe, args...)
	cmd.Env = append(os.Environ(), "LOCALAPPDATA="+state, "XDG_STATE_HOME=", "XDG_CACHE_HOME=")
	return cmd
}

func connectStdio(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	return connectStdioIn(t, "", args...)
}

// connectStdioIn is connectStdio with the server started in dir (its
// current drive and directory), or in the test's own where dir is "".
func connectStdioIn(t *testing.T, dir string, args ...string) *mcp.ClientSession {
	t.Helper()
	return connectStdioEnv(t, dir, nil, args...)
}

// connectStdioEnv is connectStdioIn with env added to the server's
// environment.
func connectStdioEnv(t *testing.T, dir string, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := command(args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

var serving = regexp.MustCompile(`url=(http://\S+/mcp)`)

// connectHTTP starts fsmcp.exe serving Streamable HTTP on a free loopback
// port (no token) and connects with a session.
func connectHTTP(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := command(append([]string{"--transport", "http", "--listen", "127.0.0.1:0", "--no-auth"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill() // Windows has no interrupt to send another process
		cmd.Wait()
	})
	urlc := make(chan string, 1)
	log := &testLog{t: t, prefix: "fsmcp: "}
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			log.Write([]byte(sc.Text()))
			if m := serving.FindStringSubmatch(sc.Text()); m != nil && !sent {
				urlc <- m[1]
				sent = true
			}
		}
		if !sent {
			close(urlc)
		}
	}()
	var url string
	select {
	case u, ok := <-urlc:
		if !ok {
			t.Fatal("fsmcp.exe exited before serving http")
		}
		url = u
	case <-time.After(2 * time.Minute): // only bounds a hang
		t.Fatal("fsmcp.exe did not serve http within two minutes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect over http: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
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
	for _, line := range strings.Split(strings.TrimRight(string(p), "\r\n"), "\n") {
		l.t.Log(l.prefix + line)
	}
	return len(p), nil
}

// call runs a tool and returns its text and whether it was an isError
// result; a protocol error fails the test.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error: %v", name, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// ok runs a tool that must succeed and returns its text.
func ok(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	out, isErr := call(t, cs, name, args)
	if isErr {
		t.Errorf("%s(%v) failed: %s", name, args, out)
	}
	return out
}

// refused runs a tool that must answer an isError result holding want.
func refused(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, want string) string {
	t.Helper()
	out, isErr := call(t, cs, name, args)
	if !isErr || !strings.Contains(out, want) {
		t.Errorf("%s(%v) = %v %q, want a refusal holding %q", name, args, isErr, out, want)
	}
	return out
}

// spellings are the ways a Windows client names the absolute path p, each
// of which must name p itself: as given, with forward slashes, with the
// separators mixed, in lower and upper case (drive letter included), and
// with the \\?\ and \\.\ prefixes.
func spellings(p string) map[string]string {
	mixed := []byte(p)
	for i, n := 0, 0; i < len(mixed); i++ {
		if mixed[i] == '\\' {
			if n%2 == 1 {
				mixed[i] = '/'
			}
			n++
		}
	}
	return map[string]string{
		"backslashes":  p,
		"slashes":      filepath.ToSlash(p),
		"mixed":        string(mixed),
		"lower case":   strings.ToLower(p),
		"upper case":   strings.ToUpper(p),
		`\\?\ prefix`:  `\\?\` + p,
		`\\.\ prefix`:  `\\.\` + p,
		`//?/ slashes`: `//?/` + filepath.ToSlash(p),
	}
}
