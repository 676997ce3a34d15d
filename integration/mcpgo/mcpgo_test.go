// Package mcpgo checks that a mark3labs/mcp-go client, which probes with
// server/discover before it initializes, uses the built fsmcp binary over
// stdio and over Streamable HTTP. It is a module of its own so that mcp-go
// stays out of fsmcp's go.mod.
package mcpgo

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// binary is fsmcp, built once from the repository root.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fsmcp-mcpgo-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "fsmcp")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Dir = filepath.Join("..", "..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building fsmcp:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// root makes an allowed directory with one file to read.
func root(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello from fsmcp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMCPGoClientOverStdio(t *testing.T) {
	dir := root(t)
	c, err := client.NewStdioMCPClient(binary, []string{"PATH=" + os.Getenv("PATH")}, "--shell", "off", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Over stdio fsmcp serves every version the go-sdk knows, 2026-07-28
	// (discover, no initialize) included.
	t.Logf("protocol version %s", useFsmcp(t, c, dir))
}

// TestMCPGoClientOverHTTP: the client's server/discover probe, sent with
// its 2026-07-28 header, reaches the stateless era, and the client works
// there (it once fell back to initialize, when /mcp served only sessions).
func TestMCPGoClientOverHTTP(t *testing.T) {
	dir := root(t)
	url := startHTTP(t, "--auth-token", "tok", "--shell", "off", dir)
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok"}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v := useFsmcp(t, c, dir); v != "2026-07-28" {
		t.Errorf("settled on %s; /mcp serves 2026-07-28 to a discover probe", v)
	}
}

// useFsmcp initializes, lists the tools and reads a file through c, and
// returns the protocol version it settled on.
func useFsmcp(t *testing.T, c *client.Client, dir string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // only bounds a hang
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{ClientInfo: mcpgo.Implementation{Name: "mcp-go-test", Version: "1"}}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if init.ServerInfo.Name != "fsmcp" {
		t.Errorf("serverInfo = %+v", init.ServerInfo)
	}
	list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	found := false
	for _, tl := range list.Tools {
		found = found || tl.Name == "fs_read"
	}
	if !found {
		t.Fatalf("fs_read not listed among %d tools", len(list.Tools))
	}
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "fs_read", Arguments: map[string]any{"file_path": filepath.Join(dir, "a.txt")}}})
	if err != nil {
		t.Fatalf("fs_read: %v", err)
	}
	text := ""
	for _, ct := range res.Content {
		if tc, ok := ct.(mcpgo.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError || !strings.Contains(text, "hello from fsmcp") {
		t.Fatalf("fs_read answered %q (isError %v)", text, res.IsError)
	}
	return init.ProtocolVersion
}

// serving matches the log line that gives the HTTP endpoint.
var serving = regexp.MustCompile(`url=(http://\S+/mcp)`)

// startHTTP starts fsmcp on a free loopback port and returns its /mcp URL,
// read from the line it logs once it listens.
func startHTTP(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "FSMCP_AUTH_TOKEN=", "FSMCP_NO_AUTH=")
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
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if m := serving.FindStringSubmatch(sc.Text()); m != nil && !sent {
				urlc <- m[1]
				sent = true
			}
		}
		if !sent {
			close(urlc)
		}
	}()
	select {
	case url, ok := <-urlc:
		if !ok {
			t.Fatal("fsmcp exited before it listened")
		}
		return url
	case <-time.After(time.Minute): // only bounds a hang
		t.Fatal("fsmcp did not say where it listens")
	}
	return ""
}
