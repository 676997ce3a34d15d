package fsmcp_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles/fsmcp"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/shell"
)

// TestRefusalNamesRoots: an outside refusal through every fsmcp tool ends
// with the allowed directories (SPEC §2), and never names what lies
// outside (a link's target).
func TestRefusalNamesRoots(t *testing.T) {
	e := testenv.New(t, testenv.WithServer(func(c *server.Config) { c.Shell = string(shell.ModeOn) }))
	roots := ": " + e.Root + ", " + e.Root2
	out := filepath.Join(e.Base, "root_evil", "x")
	link := filepath.Join(e.Root, "filelink")
	a := filepath.Join(e.Root, "a.txt")
	calls := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"fs_read", map[string]any{"file_path": out}, "path " + out + " is outside allowed directories"},
		{"fs_read", map[string]any{"file_path": link}, "path " + link + " is outside allowed directories"},
		{"fs_write", map[string]any{"file_path": out, "content": "x"}, "is outside allowed directories"},
		{"fs_edit", map[string]any{"file_path": out, "old_string": "evil", "new_string": "x"}, "is outside allowed directories"},
		{"fs_glob", map[string]any{"pattern": "*", "path": out}, "is outside allowed directories"},
		{"fs_grep", map[string]any{"pattern": "x", "path": out}, "is outside allowed directories"},
		{"fs_list", map[string]any{"path": filepath.Join(e.Root, "dirlink")}, "is outside allowed directories"},
		{"fs_stat", map[string]any{"path": out}, "is outside allowed directories"},
		{"fs_mkdir", map[string]any{"path": filepath.Join(e.Root, "dangling")}, "is outside allowed directories"},
		{"fs_move", map[string]any{"source": out, "destination": filepath.Join(e.Root, "m")}, "is outside allowed directories"},
		{"fs_copy", map[string]any{"source": a, "destination": out, "overwrite": true}, "is outside allowed directories"},
		{"fs_delete", map[string]any{"path": out}, "is outside allowed directories"},
		{"fs_catalog", map[string]any{"target_dir": e.Outside, "output_file": filepath.Join(e.Root, "c.tsv")}, "is outside allowed directories"},
		{"fs_watch", map[string]any{"path": out}, "is outside allowed directories"},
		{"fs_history", map[string]any{"path": out}, "is outside allowed directories"},
		{"fs_undo", map[string]any{"path": out, "since": "1h"}, "is outside allowed directories"},
	}
	served := map[string]bool{}
	for _, c := range calls {
		served[c.tool] = true
		e.Fails(c.tool, c.args, c.want+roots)
	}
	if runtime.GOOS != "windows" {
		served["fs_bash"] = true
		res, err := e.Call("fs_bash", map[string]any{"command": "cd " + e.Outside})
		if err != nil || !strings.Contains(testenv.Text(res), "cwd "+e.Outside+" is outside allowed directories"+roots) {
			t.Errorf("fs_bash cd out: %v %q", err, testenv.Text(res))
		}
	}
	for _, tool := range fsmcp.All() {
		if !served[tool.Def.Name] {
			t.Errorf("%s: no outside refusal checked", tool.Def.Name)
		}
	}
	// A link out is refused by its own name: the target is never told.
	res, _ := e.Call("fs_read", map[string]any{"file_path": link})
	if strings.Contains(testenv.Text(res), e.Outside) {
		t.Errorf("refusal names the link's target: %q", testenv.Text(res))
	}
	e.Mkdir("root/tree")
	e.Symlink(filepath.Join(e.Outside, "secret"), "root/tree/out")
	res, _ = e.Call("fs_copy", map[string]any{"source": filepath.Join(e.Root, "tree"), "destination": filepath.Join(e.Root2, "tree")})
	if !res.IsError || strings.Contains(testenv.Text(res), e.Outside) || !strings.HasSuffix(testenv.Text(res), roots) {
		t.Errorf("copying a link out: %q", testenv.Text(res))
	}
}

// TestRefusalNamesNarrowedRoots: a call narrowed by _meta.allowed_dirs is
// told the narrowed roots, not the server's.
func TestRefusalNamesNarrowedRoots(t *testing.T) {
	e := testenv.New(t)
	sub := filepath.Join(e.Root, "sub")
	a := filepath.Join(e.Root, "a.txt")
	res, err := e.CS.CallTool(context.Background(), &mcp.CallToolParams{
		Name:      "fs_read",
		Arguments: map[string]any{"file_path": a},
		Meta:      mcp.Meta{"allowed_dirs": []any{sub}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "path " + a + " is outside allowed directories: " + sub; !res.IsError || testenv.Text(res) != want {
		t.Errorf("narrowed refusal = %q, want %q", testenv.Text(res), want)
	}
}

// TestInstructionsNameTheShellOnlyWhereServed: fs_bash and what it reaches
// (/usr) are in the instructions only when fs_bash is served: not with
// --shell off, nor under --read-only, nor on Windows, where it is off.
func TestInstructionsNameTheShellOnlyWhereServed(t *testing.T) {
	for _, c := range []struct {
		name  string
		set   func(*server.Config)
		shell bool
	}{
		{"shell on", func(c *server.Config) { c.Shell = "on" }, true},
		{"shell off", func(c *server.Config) { c.Shell = "off" }, false},
		{"read-only", func(c *server.Config) { c.Shell = "on"; c.ReadOnly = true }, false},
	} {
		e := testenv.New(t, testenv.WithServer(c.set))
		got := e.CS.InitializeResult().Instructions
		if strings.Contains(got, "fs_bash") != c.shell || strings.Contains(got, "/usr") != c.shell || !strings.Contains(got, "Pass absolute paths") {
			t.Errorf("%s: instructions = %q", c.name, got)
		}
	}
}

// TestInstructionsNameRoots: the initialize answer tells the agent its
// roots (fsmcp_nodir.txtar: how to give them when it was started without).
func TestInstructionsNameRoots(t *testing.T) {
	for _, opts := range [][]testenv.Option{nil, {testenv.WithLegacyProtocol()}} {
		e := testenv.New(t, opts...) // server/discover, then initialize
		got := e.CS.InitializeResult().Instructions
		if !strings.Contains(got, e.Root+", "+e.Root2) || !strings.Contains(got, "absolute") {
			t.Errorf("instructions = %q", got)
		}
	}
}
