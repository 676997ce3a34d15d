package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/shell"
)

// shellModes are the --shell values that run a shell here: sandboxed only
// where the kernel has Landlock.
func shellModes(t *testing.T) []string {
	if _, ok := shell.Available(); ok {
		return []string{"on", "sandboxed"}
	}
	t.Log("SKIPPED: --shell sandboxed (this kernel has no Landlock)")
	return []string{"on"}
}

func bash(t *testing.T, cs *mcp.ClientSession, command string) (string, bool) {
	t.Helper()
	return call(t, cs, "fs_bash", map[string]any{"command": command})
}

// alive reports whether pid is a live process (zombies count as gone).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 6000; i++ { // a minute at most: only bounds a hang
		if !alive(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("process %d is still running", pid)
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		t.Fatalf("not a pid: %q", s)
	}
	return n
}

func TestBashSession(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		for _, m := range shellModes(t) {
			t.Run(m, func(t *testing.T) {
				cs := connect("--shell", m, tr.root)
				res, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				i := slices.IndexFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "fs_bash" })
				if i < 0 {
					t.Fatal("fs_bash not listed")
				}
				if a := res.Tools[i].Annotations; a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
					t.Errorf("fs_bash annotations: %+v", a)
				}

				if out, isErr := bash(t, cs, "pwd"); isErr || out != tr.root {
					t.Fatalf("first pwd: %q %v", out, isErr)
				}
				bash(t, cs, "cd sub")
				if out, _ := bash(t, cs, "pwd"); out != tr.path("sub") {
					t.Fatalf("cwd not kept: %q", out)
				}
				// Failure: status and stderr both reported.
				out, isErr := bash(t, cs, "echo before; ls no-such-file")
				if !isErr || !strings.HasPrefix(out, "before\n") || !strings.Contains(out, "no-such-file") || !strings.HasSuffix(out, "Exit code: 2") {
					t.Fatalf("failing command: %v %q", isErr, out)
				}
				if out, isErr := bash(t, cs, "exit 3"); !isErr || out != "Exit code: 3" {
					t.Fatalf("exit 3: %v %q", isErr, out)
				}
				// cd out of the roots: refused, cwd kept.
				out, _ = bash(t, cs, "cd "+tr.evil)
				if !strings.Contains(out, "cwd "+tr.evil+" is outside allowed directories: "+tr.root) {
					t.Fatalf("cd outside: %q", out)
				}
				if out, _ := bash(t, cs, "pwd"); out != tr.path("sub") {
					t.Fatalf("cwd after refused cd: %q", out)
				}
				if m != "sandboxed" {
					return
				}
				for _, cmd := range []string{"cat " + filepath.Join(tr.outside, "secret.txt"), "cat ../link-out", "ls ../dir-out/", "echo x > ../dangling-out", "echo x > " + filepath.Join(tr.evil, "pwn")} {
					out, isErr := bash(t, cs, cmd)
					if !isErr || !strings.Contains(out, "Permission denied") {
						t.Errorf("sandboxed %q: %v %q", cmd, isErr, out)
					}
				}
				tr.assertOutsideUntouched(t)
				if _, err := os.Stat(filepath.Join(tr.evil, "pwn")); err == nil {
					t.Error("sandboxed shell wrote into the prefix sibling")
				}
				if out, isErr := bash(t, cs, "cat ../a.txt | head -1 && echo new > made.txt && cat made.txt"); isErr || out != "alpha\nnew" {
					t.Errorf("inside the root: %v %q", isErr, out)
				}
			})
		}
	})
}

func TestBashTimeoutAndCancel(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect(tr.root)
		pidFile := tr.path(fmt.Sprintf("child-%d.pid", time.Now().UnixNano()))
		// On a loaded machine the shell may not reach the echo within a
		// short timeout: the timeout grows until the command has started,
		// so the test checks the kill, not the machine's speed.
		for ms := 500; ; ms *= 4 {
			out, isErr := call(t, cs, "fs_bash", map[string]any{
				"command": "sleep 100 & echo $! > " + pidFile + "; sleep 100",
				"timeout": ms,
			})
			if !isErr || !strings.Contains(out, fmt.Sprintf("timed out after %d ms", ms)) {
				t.Fatalf("timeout: %v %q", isErr, out)
			}
			if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
				break
			}
			if ms > 60000 {
				t.Fatal("the command never started")
			}
		}
		waitGone(t, atoi(t, readFile(t, pidFile)))

		// notifications/cancelled (the client cancels its context).
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_bash", Arguments: map[string]any{
				"command": "sleep 100 & echo $! > " + pidFile + ".2; sleep 100",
			}})
			errc <- err
		}()
		var pid int
		for i := 0; i < 6000 && pid == 0; i++ { // a minute at most: only bounds a hang
			if b, err := os.ReadFile(pidFile + ".2"); err == nil && strings.HasSuffix(string(b), "\n") {
				pid = atoi(t, string(b))
			}
			time.Sleep(10 * time.Millisecond)
		}
		if pid == 0 {
			t.Fatal("command did not start")
		}
		cancel()
		<-errc
		waitGone(t, pid)
		// The session still works.
		if out, isErr := bash(t, cs, "echo alive"); isErr || out != "alive" {
			t.Fatalf("after cancel: %v %q", isErr, out)
		}
	})
}

func TestBashBackgroundDiesWithSession(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect(tr.root)
		start := time.Now()
		out, isErr := bash(t, cs, "sleep 100 & echo $!")
		if isErr || time.Since(start) > time.Minute { // well short of the sleep: not waited for
			t.Fatalf("background command: %v %q after %v", isErr, out, time.Since(start))
		}
		pid := atoi(t, out)
		if !alive(pid) {
			t.Fatal("background child should run while the session lives")
		}
		cs.Close() // stdio: the server exits; http: the session is deleted
		waitGone(t, pid)
	})
}

func TestBashSessionsHaveTheirOwnCwd(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	url, _ := startHTTP(t, m, tr.root)
	connect := func() *mcp.ClientSession {
		cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b := connect(), connect()
	bash(t, a, "cd sub")
	if out, _ := bash(t, b, "pwd"); out != tr.root {
		t.Fatalf("session b moved with a: %q", out)
	}
	if out, _ := bash(t, a, "pwd"); out != tr.path("sub") {
		t.Fatalf("session a lost its cwd: %q", out)
	}
}

func TestBashOff(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect("--shell", "off", tr.root)
		if slices.Contains(toolNames(t, cs), "fs_bash") {
			t.Fatal("--shell off still lists fs_bash")
		}
		if res, err := callRaw(cs, "fs_bash", map[string]any{"command": "touch " + tr.path("ran")}, nil); err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != "unknown tool: fs_bash" {
			t.Fatalf("fs_bash with --shell off: %v %v", err, res)
		}
		if _, err := os.Stat(tr.path("ran")); err == nil {
			t.Fatal("fs_bash ran with --shell off")
		}
	})
}

func TestBashBackgroundDiesWithServer(t *testing.T) {
	tr := newTree(t)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			url, cmd := startHTTP(t, modes(t)[0], tr.root)
			cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() }) // lets the server's graceful shutdown finish
			out, _ := bash(t, cs, "sleep 100 & echo $!")
			pid := atoi(t, out)
			start := time.Now()
			cmd.Process.Signal(sig)
			waitGone(t, pid)
			if d := time.Since(start); d > time.Minute { // well short of the sleep: killed, not outlived
				t.Errorf("background child outlived the signal by %v", d)
			}
		})
	}
}
