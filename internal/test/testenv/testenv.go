// Package testenv drives an fsmcp server over a fixture tree through an
// in-memory MCP client, so that tests exercise schema validation and the
// error contract as a client sees them.
package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend/stack"
	"github.com/fsmcp/fsmcp/profiles"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

// Env is an fsmcp server over a fixture tree, driven by an in-memory MCP
// client, so that schema validation and the error contract are exercised.
//
// The tree: base/root (the allowed dir) with a.txt, sub/b.txt, inlink ->
// a.txt, filelink -> base/outside/secret, dirlink -> base/outside,
// dangling -> base/outside/created; base/root_evil/x (a prefix sibling);
// base/outside/secret; base/root2 (a second root, when asked for).
type Env struct {
	T                          *testing.T
	Base, Root, Root2, Outside string
	CS                         *mcp.ClientSession
	Srv                        *server.Server
}

// config is what the options of New set.
type config struct {
	server  server.Config
	client  mcp.ClientOptions
	session *mcp.ClientSessionOptions
	info    *mcp.Implementation
}

type Option func(*config)

func WithLimits(f func(*toolkit.Limits)) Option {
	return func(c *config) { f(&c.server.Limits) }
}

func WithClient(f func(*mcp.ClientOptions)) Option {
	return func(c *config) { f(&c.client) }
}

// WithClientInfo names the client as a host does in its initialize
// (clientInfo), for what the server decides by it (the answer budget).
func WithClientInfo(name, version string) Option {
	return func(c *config) { c.info = &mcp.Implementation{Name: name, Version: version} }
}

// WithServer changes the server's configuration.
func WithServer(f func(*server.Config)) Option {
	return func(c *config) { f(&c.server) }
}

func WithResources() Option {
	return func(c *config) { c.server.Resources = true }
}

// withLegacyProtocol makes the client speak 2025-11-25 (the initialize
// handshake) instead of the SDK's newest protocol.
func WithLegacyProtocol() Option {
	return func(c *config) { c.session = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"} }
}

func New(t *testing.T, opts ...Option) *Env {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{T: t, Base: base, Root: filepath.Join(base, "root"), Root2: filepath.Join(base, "root2"), Outside: filepath.Join(base, "outside")}
	e.Mkdir("root/sub")
	e.Mkdir("root2")
	e.Mkdir("outside")
	e.Mkdir("root_evil")
	e.Write("root/a.txt", "hello\n")
	e.Write("root/sub/b.txt", "bee\n")
	e.Write("outside/secret", "secret\n")
	e.Write("root_evil/x", "evil\n")
	e.Symlink("a.txt", "root/inlink")
	e.Symlink(filepath.Join(e.Outside, "secret"), "root/filelink")
	e.Symlink(e.Outside, "root/dirlink")
	e.Symlink(filepath.Join(e.Outside, "created"), "root/dangling")

	sb, errs := sandbox.New([]string{e.Root, e.Root2})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	cfg := &config{info: &mcp.Implementation{Name: "test", Version: "1"}, server: server.Config{Name: "fsmcp", Version: "test", Settings: toolkit.Settings{Limits: toolkit.Limits{
		MaxFileSize: 10 << 20, MaxOutput: 100000, Timeout: 30 * time.Second, MaxResults: 1000,
	}}}}
	for _, o := range opts {
		o(cfg)
	}
	if cfg.server.Profiles == nil {
		if cfg.server.Profiles, err = profiles.Lookup(""); err != nil {
			t.Fatal(err)
		}
	}
	if cfg.server.Search.Searcher == nil {
		search, err := stack.New(stack.Options{Roots: sb.Roots()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(search.Close)
		cfg.server.Search = search.Stack
	}
	e.Srv, err = server.New(cfg.server, sb, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := e.Srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(cfg.info, &cfg.client).Connect(ctx, ct, cfg.session)
	if err != nil {
		t.Fatal(err)
	}
	e.CS = cs
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		e.Srv.Close()
		sb.Close()
	})
	return e
}

func (e *Env) Path(rel string) string { return filepath.Join(e.Base, rel) }

func (e *Env) Mkdir(rel string) {
	e.T.Helper()
	if err := os.MkdirAll(e.Path(rel), 0o755); err != nil {
		e.T.Fatal(err)
	}
}

func (e *Env) Write(rel, content string) {
	e.T.Helper()
	if err := os.MkdirAll(filepath.Dir(e.Path(rel)), 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(e.Path(rel), []byte(content), 0o644); err != nil {
		e.T.Fatal(err)
	}
}

func (e *Env) Symlink(target, rel string) {
	e.T.Helper()
	if err := os.Symlink(target, e.Path(rel)); err != nil {
		e.T.Fatal(err)
	}
}

func (e *Env) Read(rel string) string {
	e.T.Helper()
	b, err := os.ReadFile(e.Path(rel))
	if err != nil {
		e.T.Fatal(err)
	}
	return string(b)
}

func (e *Env) Exists(rel string) bool {
	_, err := os.Lstat(e.Path(rel))
	return err == nil
}

// call runs a tool; a protocol error is returned as err.
func (e *Env) Call(name string, args map[string]any) (*mcp.CallToolResult, error) {
	e.T.Helper()
	return e.CS.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
}

func Text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ok runs a tool that must succeed and returns its text.
func (e *Env) OK(name string, args map[string]any) string {
	e.T.Helper()
	res, err := e.Call(name, args)
	if err != nil {
		e.T.Fatalf("%s %v: protocol error %v", name, args, err)
	}
	if res.IsError {
		e.T.Fatalf("%s %v: tool error %q", name, args, Text(res))
	}
	return Text(res)
}

// fails runs a tool that must give an isError result containing want,
// and checks that the whole fixture (roots and outside) is unchanged.
func (e *Env) Fails(name string, args map[string]any, want string) {
	e.T.Helper()
	before := e.Snapshot()
	res, err := e.Call(name, args)
	if err != nil {
		e.T.Fatalf("%s %v: protocol error %v, want a tool error", name, args, err)
	}
	if !res.IsError {
		e.T.Fatalf("%s %v: succeeded with %q, want error containing %q", name, args, Text(res), want)
	}
	if !strings.Contains(Text(res), want) {
		e.T.Fatalf("%s %v: error %q, want it to contain %q", name, args, Text(res), want)
	}
	if after := e.Snapshot(); after != before {
		e.T.Fatalf("%s %v failed but changed the tree:\nbefore:\n%s\nafter:\n%s", name, args, before, after)
	}
}

// snapshot describes every entry under base: type, mode, content hash,
// link target, mtime.
func (e *Env) Snapshot() string {
	e.T.Helper()
	var b strings.Builder
	filepath.WalkDir(e.Base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(&b, "%s error %v\n", p, err)
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(e.Base, p)
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
func (e *Env) Refusals() map[string]string {
	return map[string]string{
		"symlink dir out":  filepath.Join(e.Root, "dirlink", "secret"),
		"symlink file out": filepath.Join(e.Root, "filelink"),
		"dangling out":     filepath.Join(e.Root, "dangling"),
		"prefix sibling":   filepath.Join(e.Base, "root_evil", "x"),
		"dotdot":           e.Root + "/sub/../../outside/secret",
	}
}

// protocolError runs a tool that must fail with a JSON-RPC error of code,
// changing nothing.
func (e *Env) ProtocolError(name string, args map[string]any, code int64, msg string) {
	e.T.Helper()
	before := e.Snapshot()
	_, err := e.Call(name, args)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != code || (msg != "" && je.Message != msg) {
		e.T.Fatalf("%s %v: err %v, want JSON-RPC error %d %q", name, args, err, code, msg)
	}
	if e.Snapshot() != before {
		e.T.Fatalf("%s %v failed but changed the tree", name, args)
	}
}

// bigTree writes dirs×perDir files under rel.
func (e *Env) BigTree(rel string, dirs, perDir int) {
	e.T.Helper()
	for d := range dirs {
		dir := e.Path(filepath.Join(rel, fmt.Sprintf("d%04d", d)))
		os.MkdirAll(dir, 0o755)
		for f := range perDir {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", f)), []byte("x"), 0o644); err != nil {
				e.T.Fatal(err)
			}
		}
	}
}

// leftovers fails if a temporary file of fsmcp's is left under dir.
func Leftovers(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".fsmcp-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}
