package tools_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/tools"
)

// env is an fsmcp server over a fixture tree, driven by an in-memory MCP
// client, so that schema validation and the error contract are exercised.
//
// The tree: base/root (the allowed dir) with a.txt, sub/b.txt, inlink ->
// a.txt, filelink -> base/outside/secret, dirlink -> base/outside,
// dangling -> base/outside/created; base/root_evil/x (a prefix sibling);
// base/outside/secret; base/root2 (a second root, when asked for).
type env struct {
	t                          *testing.T
	base, root, root2, outside string
	cs                         *mcp.ClientSession
	srv                        *server.Server
}

// envConfig is what the options of newEnv set.
type envConfig struct {
	server  server.Config
	client  mcp.ClientOptions
	session *mcp.ClientSessionOptions
}

type envOption func(*envConfig)

func withLimits(f func(*tools.Limits)) envOption {
	return func(c *envConfig) { f(&c.server.Limits) }
}

func withClient(f func(*mcp.ClientOptions)) envOption {
	return func(c *envConfig) { f(&c.client) }
}

func withResources() envOption {
	return func(c *envConfig) { c.server.Resources = true }
}

// withLegacyProtocol makes the client speak 2025-11-25 (the initialize
// handshake) instead of the SDK's newest protocol.
func withLegacyProtocol() envOption {
	return func(c *envConfig) { c.session = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"} }
}

func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, base: base, root: filepath.Join(base, "root"), root2: filepath.Join(base, "root2"), outside: filepath.Join(base, "outside")}
	e.mkdir("root/sub")
	e.mkdir("root2")
	e.mkdir("outside")
	e.mkdir("root_evil")
	e.write("root/a.txt", "hello\n")
	e.write("root/sub/b.txt", "bee\n")
	e.write("outside/secret", "secret\n")
	e.write("root_evil/x", "evil\n")
	e.symlink("a.txt", "root/inlink")
	e.symlink(filepath.Join(e.outside, "secret"), "root/filelink")
	e.symlink(e.outside, "root/dirlink")
	e.symlink(filepath.Join(e.outside, "created"), "root/dangling")

	sb, errs := sandbox.New([]string{e.root, e.root2})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	cfg := &envConfig{server: server.Config{Name: "fsmcp", Version: "test", Limits: tools.Limits{
		MaxFileSize: 10 << 20, MaxOutput: 100000, Timeout: 30 * time.Second, MaxResults: 1000,
	}}}
	for _, o := range opts {
		o(cfg)
	}
	e.srv = server.New(cfg.server, sb, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := e.srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &cfg.client).Connect(ctx, ct, cfg.session)
	if err != nil {
		t.Fatal(err)
	}
	e.cs = cs
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		e.srv.Close()
		sb.Close()
	})
	return e
}

func (e *env) path(rel string) string { return filepath.Join(e.base, rel) }

func (e *env) mkdir(rel string) {
	e.t.Helper()
	if err := os.MkdirAll(e.path(rel), 0o755); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) write(rel, content string) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(e.path(rel)), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(e.path(rel), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) symlink(target, rel string) {
	e.t.Helper()
	if err := os.Symlink(target, e.path(rel)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *env) exists(rel string) bool {
	_, err := os.Lstat(e.path(rel))
	return err == nil
}

// call runs a tool; a protocol error is returned as err.
func (e *env) call(name string, args map[string]any) (*mcp.CallToolResult, error) {
	e.t.Helper()
	return e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ok runs a tool that must succeed and returns its text.
func (e *env) ok(name string, args map[string]any) string {
	e.t.Helper()
	res, err := e.call(name, args)
	if err != nil {
		e.t.Fatalf("%s %v: protocol error %v", name, args, err)
	}
	if res.IsError {
		e.t.Fatalf("%s %v: tool error %q", name, args, text(res))
	}
	return text(res)
}

// fails runs a tool that must give an isError result containing want,
// and checks that the whole fixture (roots and outside) is unchanged.
func (e *env) fails(name string, args map[string]any, want string) {
	e.t.Helper()
	before := e.snapshot()
	res, err := e.call(name, args)
	if err != nil {
		e.t.Fatalf("%s %v: protocol error %v, want a tool error", name, args, err)
	}
	if !res.IsError {
		e.t.Fatalf("%s %v: succeeded with %q, want error containing %q", name, args, text(res), want)
	}
	if !strings.Contains(text(res), want) {
		e.t.Fatalf("%s %v: error %q, want it to contain %q", name, args, text(res), want)
	}
	if after := e.snapshot(); after != before {
		e.t.Fatalf("%s %v failed but changed the tree:\nbefore:\n%s\nafter:\n%s", name, args, before, after)
	}
}

// snapshot describes every entry under base: type, mode, content hash,
// link target, mtime.
func (e *env) snapshot() string {
	e.t.Helper()
	var b strings.Builder
	filepath.WalkDir(e.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(&b, "%s error %v\n", p, err)
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(e.base, p)
		fmt.Fprintf(&b, "%s %s", rel, fi.Mode())
		switch {
		case fi.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			h := sha256.Sum256(data)
			fmt.Fprintf(&b, " %s %d", hex.EncodeToString(h[:8]), fi.ModTime().UnixNano())
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			fmt.Fprintf(&b, " -> %s", l)
		}
		b.WriteByte('\n')
		return nil
	})
	return b.String()
}

// refusals are the sandbox cases every path-taking tool must refuse.
func (e *env) refusals() map[string]string {
	return map[string]string{
		"symlink dir out":  filepath.Join(e.root, "dirlink", "secret"),
		"symlink file out": filepath.Join(e.root, "filelink"),
		"dangling out":     filepath.Join(e.root, "dangling"),
		"prefix sibling":   filepath.Join(e.base, "root_evil", "x"),
		"dotdot":           e.root + "/sub/../../outside/secret",
	}
}
