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
	_, ok := started(pid)
	return ok
}

// started is a live process's start time (field 22 of /proc/pid/stat), the
// one thing that tells it from a later process given the same pid: with
// pid_max at 32768 and make test starting thousands of processes, a pid is
// taken again within seconds.
func started(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) || b[i+2] == 'Z' || b[i+2] == 'X' {
		return "", false
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 20 {
		return "", false
	}
	return f[19], true
}

// waitGone waits for the process pid is now to end; a later process given
// the same pid does not keep it waiting.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	first, ok := started(pid)
	for i := 0; ok && i < 6000; i++ { // a minute at most: only bounds a hang
		time.Sleep(10 * time.Millisecond)
		if now, live := started(pid); !live || now != first {
			return
		}
	}
	if ok {
		t.Errorf("process %d is still running", pid)
	}
}

// sleeper returns a command line "sleep 100.N" with an argument no other
// process has, and that argument. The test finds the process in /proc by
// it: $! is no use, since under --shell sandboxed it is the pid inside the
// session's own pid namespace.
func sleeper() (cmd, arg string) {
	arg = fmt.Sprintf("100.%09d", time.Now().UnixNano()%1e9)
	return "sleep " + arg, arg
}

// findSleeper returns the pid of the live process "sleep arg", or 0.
func findSleeper(arg string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == "sleep\x00"+arg+"\x00" && alive(pid) {
			return pid
		}
	}
	return 0
}

// sleeperStarted waits for "sleep arg" to run and returns its pid (the
// minute only bounds a hang: $! is known before sleep is exec'd).
func sleeperStarted(t *testing.T, arg string) int {
	t.Helper()
	for i := 0; i < 6000; i++ {
		if pid := findSleeper(arg); pid != 0 {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("sleep %s is not running", arg)
	return 0
}

// waitSleeperGone waits for no process "sleep arg" to be left.
func waitSleeperGone(t *testing.T, arg string) {
	t.Helper()
	for i := 0; i < 6000; i++ { // a minute at most: only bounds a hang
		if findSleeper(arg) == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("sleep %s is still running", arg)
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
				// cd out of the roots: refused, cwd kept. (The sandboxed
				// shell, in its own mount namespace, finds no prefix
				// sibling at all; / exists for it.)
				for _, dir := range []string{tr.evil, "/"} {
					out, _ = bash(t, cs, "cd "+dir)
					if !strings.Contains(out, "cwd "+dir+" is outside allowed directories: "+tr.root) &&
						!(m == "sandboxed" && dir == tr.evil && strings.Contains(out, "No such file or directory")) {
						t.Fatalf("cd outside: %q", out)
					}
					if out, _ := bash(t, cs, "pwd"); out != tr.path("sub") {
						t.Fatalf("cwd after refused cd: %q", out)
					}
				}
				if m != "sandboxed" {
					return
				}
				for _, cmd := range []string{"cat " + filepath.Join(tr.outside, "secret.txt"), "cat ../link-out", "ls ../dir-out/", "echo x > ../dangling-out", "echo x > " + filepath.Join(tr.evil, "pwn")} {
					out, isErr := bash(t, cs, cmd)
					if !isErr || !strings.Contains(out, "Permission denied") && !strings.Contains(out, "No such file or directory") {
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
		var arg string
		for ms := 500; ; ms *= 4 {
			var sleep string
			sleep, arg = sleeper()
			out, isErr := call(t, cs, "fs_bash", map[string]any{
				"command": sleep + " & echo $! > " + pidFile + "; sleep 100",
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
		waitSleeperGone(t, arg)

		// notifications/cancelled (the client cancels its context).
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		sleep, arg := sleeper()
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_bash", Arguments: map[string]any{
				"command": sleep + " & echo $! > " + pidFile + ".2; sleep 100",
			}})
			errc <- err
		}()
		sleeperStarted(t, arg)
		cancel()
		<-errc
		waitSleeperGone(t, arg)
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
		sleep, arg := sleeper()
		out, isErr := bash(t, cs, sleep+" & echo $!")
		if isErr || time.Since(start) > time.Minute { // well short of the sleep: not waited for
			t.Fatalf("background command: %v %q after %v", isErr, out, time.Since(start))
		}
		pid := sleeperStarted(t, arg)
		if out, isErr := bash(t, cs, "echo next"); isErr || out != "next" || !alive(pid) {
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
		cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, sessionEra)
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
			cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, sessionEra)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() }) // lets the server's graceful shutdown finish
			sleep, arg := sleeper()
			bash(t, cs, sleep+" & echo $!")
			pid := sleeperStarted(t, arg)
			start := time.Now()
			cmd.Process.Signal(sig)
			waitGone(t, pid)
			if d := time.Since(start); d > time.Minute { // well short of the sleep: killed, not outlived
				t.Errorf("background child outlived the signal by %v", d)
			}
		})
	}
}
