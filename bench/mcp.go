package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpServer is a running fsmcp binary driven through the go-sdk client
// over stdio, as an agent host drives it.
type mcpServer struct {
	cmd *exec.Cmd
	cs  *mcp.ClientSession
}

// buildBinary builds fsmcp from the module root into a temp dir, as
// make build does (static, stripped): what ships is what is timed. It
// matters for the rg backend, which starts fsmcp again as rg's confining
// helper on every search.
func buildBinary() (string, error) {
	dir, err := os.MkdirTemp("", "fsmcp-bench-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "fsmcp")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return bin, cmd.Run()
}

// startMCP starts the binary on roots with --index index. withRG false
// hides rg from PATH, so the server's auto backend is the native
// scanner. With --index on it returns once every root's index is ready
// (the server says so on stderr), so no build runs while searches are
// timed.
func startMCP(bin string, withRG bool, roots []string, index string) (*mcpServer, error) {
	cmd := exec.Command(bin, append([]string{"--index", index}, roots...)...)
	cmd.Stderr = nil // the server's start-up line is not part of the table
	var ready chan struct{}
	if index == "on" {
		ready = make(chan struct{})
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		cmd.Stderr = w
		go func() {
			sc := bufio.NewScanner(r)
			left := len(roots)
			for sc.Scan() {
				line := sc.Text()
				if strings.Contains(line, "index:") {
					fmt.Fprintln(os.Stderr, "bench: fsmcp:", line)
				}
				if indexSettled(line) {
					if left--; left == 0 {
						close(ready)
					}
				}
			}
			if left > 0 { // the server ended first: do not wait forever
				close(ready)
			}
		}()
		defer w.Close() // the child holds its copy
	}
	path := os.Getenv("PATH")
	if !withRG {
		path = os.TempDir() + "/fsmcp-bench-empty-path"
		_ = os.MkdirAll(path, 0o755)
	}
	cmd.Env = append(os.Environ(), "PATH="+path)
	client := mcp.NewClient(&mcp.Implementation{Name: "fsmcp-bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	if ready != nil {
		<-ready
	}
	return &mcpServer{cmd: cmd, cs: cs}, nil
}

// indexSettled reports whether a server's stderr line ends a root's
// start-up: its index is in use and, on Linux, the watcher that lets
// searches prune follows the tree (or says why not).
func indexSettled(line string) bool {
	if strings.Contains(line, "index: not built") {
		return true
	}
	if runtime.GOOS == "linux" {
		return strings.Contains(line, "index: following changes") || strings.Contains(line, "index: not following changes") || strings.Contains(line, "index: no watcher")
	}
	return strings.Contains(line, "index: ready") || strings.Contains(line, "index: reusing")
}

// runner returns the bench runner calling fs_grep / fs_glob.
func (s *mcpServer) runner(limit int) func(context.Context, string, query) error {
	return func(ctx context.Context, tree string, q query) error {
		p := &mcp.CallToolParams{}
		if q.glob != "" {
			p.Name, p.Arguments = "fs_glob", map[string]any{"pattern": q.glob, "path": tree}
		} else {
			g := q.grep
			args := map[string]any{"pattern": g.Pattern, "path": tree, "output_mode": g.Mode.String(), "head_limit": limit}
			if g.IgnoreCase {
				args["-i"] = true
			}
			p.Name, p.Arguments = "fs_grep", args
		}
		res, err := s.cs.CallTool(ctx, p)
		if err != nil {
			return err
		}
		if res.IsError {
			var b strings.Builder
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					b.WriteString(t.Text)
				}
			}
			return fmt.Errorf("%s: %s", p.Name, b.String())
		}
		return nil
	}
}

// peakRSS returns the server process's VmHWM in bytes.
func (s *mcpServer) peakRSS() int64 { return vmHWM(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid)) }

// resetPeakRSS resets the server's VmHWM.
func (s *mcpServer) resetPeakRSS() {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.cmd.Process.Pid), []byte("5"), 0)
}

func (s *mcpServer) close() { _ = s.cs.Close() }

// vmHWM reads VmHWM from a /proc status file.
func vmHWM(status string) int64 {
	data, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}
