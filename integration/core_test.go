package integration

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestToolsListedWithAnnotations(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect(tr.root)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		names := toolNames(t, cs)
		for _, want := range []string{"fs_read", "fs_write", "fs_edit"} {
			if !slices.Contains(names, want) {
				t.Errorf("tools/list lacks %s (has %v)", want, names)
			}
		}
		for _, tool := range res.Tools {
			a := tool.Annotations
			if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
				t.Errorf("%s: openWorldHint must be false", tool.Name)
			}
			if tool.Description == "" {
				t.Errorf("%s: no description", tool.Name)
			}
		}
		info := cs.InitializeResult().ServerInfo
		if info.Name != "fsmcp" {
			t.Errorf("serverInfo.name = %q", info.Name)
		}
	})
}

func TestReadOnlyModeRemovesWriters(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect("--read-only", tr.root)
		names := toolNames(t, cs)
		for _, banned := range []string{"fs_write", "fs_edit", "fs_bash", "fs_delete", "fs_move"} {
			if slices.Contains(names, banned) {
				t.Errorf("--read-only still lists %s", banned)
			}
		}
		if !slices.Contains(names, "fs_read") {
			t.Errorf("--read-only lost fs_read: %v", names)
		}
		// fsMCP answers a tool it does not serve with an isError result.
		res, err := callRaw(cs, "fs_write", map[string]any{"file_path": tr.path("new.txt"), "content": "x"}, nil)
		if err != nil || !res.IsError || testenv.Text(res) != "unknown tool: fs_write" {
			t.Fatalf("fs_write in --read-only mode: %v %q", err, testenv.Text(res))
		}
		if _, statErr := os.Stat(tr.path("new.txt")); statErr == nil {
			t.Fatal("fs_write wrote in --read-only mode")
		}
	})
}

func TestReadWriteEditRoundTrip(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect(tr.root)
		file := filepath.Join(tr.root, "made", t.Name(), "new.txt")
		out := mustCall(t, cs, "fs_write", map[string]any{"file_path": file, "content": "one\ntwo\nthree\n"})
		if out != "Wrote 14 bytes to "+file {
			t.Fatalf("fs_write = %q", out)
		}
		out = mustCall(t, cs, "fs_read", map[string]any{"file_path": file})
		if out != "1\tone\n2\ttwo\n3\tthree" {
			t.Fatalf("fs_read = %q", out)
		}
		out = mustCall(t, cs, "fs_edit", map[string]any{"file_path": file, "old_string": "two", "new_string": "TWO"})
		if out != "Replaced 1 occurrence(s) in "+file {
			t.Fatalf("fs_edit = %q", out)
		}
		mustFail(t, cs, "fs_edit", map[string]any{"file_path": file, "old_string": "e", "new_string": "E"}, "found 3 times")
		mustFail(t, cs, "fs_edit", map[string]any{"file_path": file, "edits": []any{
			map[string]any{"old_string": "one", "new_string": "1"},
			map[string]any{"old_string": "absent", "new_string": "x"},
		}}, "edit 2 of 2: old_string not found")
		if got := readFile(t, file); got != "one\nTWO\nthree\n" {
			t.Fatalf("a failed batch changed the file: %q", got)
		}
		mustCall(t, cs, "fs_edit", map[string]any{"file_path": file, "edits": []any{
			map[string]any{"old_string": "one", "new_string": "1"},
			map[string]any{"old_string": "e", "new_string": "E", "replace_all": true},
		}})
		if got := readFile(t, file); got != "1\nTWO\nthrEE\n" {
			t.Fatalf("batch edit result: %q", got)
		}
	})
}

func TestReadFormats(t *testing.T) {
	tr := newTree(t)
	var long strings.Builder
	for i := 1; i <= 12; i++ {
		long.WriteString(strings.Repeat("x", i*200) + "\n")
	}
	write(t, tr.path("long.txt"), long.String())
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	write(t, tr.path("pic.png"), string(png))
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect(tr.root)
		out := mustCall(t, cs, "fs_read", map[string]any{"file_path": tr.path("long.txt"), "offset": 9, "limit": 3})
		lines := strings.Split(out, "\n")
		if !strings.HasPrefix(lines[0], " 9\t") || !strings.HasPrefix(lines[1], "10\t") {
			t.Fatalf("numbers not right-aligned to the widest: %q", lines[:2])
		}
		if strings.Contains(lines[1], "truncated") || len(lines[1]) != len("10\t")+2000 {
			t.Fatalf("line 10 (exactly 2000 chars) was changed: len %d", len(lines[1]))
		}
		if !strings.HasSuffix(lines[2], "x... [truncated]") || len(lines[2]) != len("11\t")+2000+len("... [truncated]") {
			t.Fatalf("line 11 (2200 chars) not cut at 2000: len %d", len(lines[2]))
		}
		if !strings.Contains(out, "(showing lines 9-11 of 12; use offset=12 to read on)") {
			t.Fatalf("no paging hint: %q", out[len(out)-80:])
		}
		out = mustCall(t, cs, "fs_read", map[string]any{"file_path": tr.path("crlf.txt")})
		if out != "1\tone\n2\ttwo needle\n3\tthree" {
			t.Fatalf("crlf read = %q", out)
		}
		mustFail(t, cs, "fs_read", map[string]any{"file_path": tr.path("bin.dat")}, "binary file")
		mustFail(t, cs, "fs_read", map[string]any{"file_path": tr.path("sub")}, "directory")
		mustFail(t, cs, "fs_read", map[string]any{"file_path": tr.path("nope.txt")}, "file not found")
		mustFail(t, cs, "fs_read", map[string]any{"file_path": "a.txt"}, "path must be absolute")
		res, err := callRaw(cs, "fs_read", map[string]any{"file_path": tr.path("pic.png")}, nil)
		if err != nil || res.IsError {
			t.Fatalf("read png: %v %v", err, testenv.Text(res))
		}
		img, ok := res.Content[0].(*mcp.ImageContent)
		if !ok || img.MIMEType != "image/png" || string(img.Data) != string(png) {
			t.Fatalf("png not returned as image content: %#v", res.Content[0])
		}
	})
}

func TestEditKeepsCRLFAndMissingNewline(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect(tr.root)
		file := tr.path("crlf-" + strings.ReplaceAll(t.Name(), "/", "-") + ".txt")
		write(t, file, "one\r\ntwo\r\nthree")
		mustCall(t, cs, "fs_edit", map[string]any{"file_path": file, "old_string": "one\ntwo", "new_string": "1\n2\n2.5"})
		if got := readFile(t, file); got != "1\r\n2\r\n2.5\r\nthree" {
			t.Fatalf("CRLF not kept: %q", got)
		}
	})
}

// TestMalformedCallsAreIsErrorResults: invalid arguments come back as
// isError results the model can read (MCP 2025-11-25, SEP-1303), as in
// fsMCP; unknown arguments are ignored.
func TestMalformedCallsAreIsErrorResults(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect(tr.root)
		for _, args := range []map[string]any{
			{},                                  // missing file_path
			{"file_path": 42},                   // mistyped
			{"file_path": "/x", "limit": "ten"}, // mistyped optional
		} {
			res, err := callRaw(cs, "fs_read", args, nil)
			if err != nil || !res.IsError || !strings.HasPrefix(testenv.Text(res), "invalid arguments: ") {
				t.Errorf("fs_read(%v) = %v %v, want an isError result", args, res, err)
			}
		}
		if out := mustCall(t, cs, "fs_read", map[string]any{"file_path": tr.path("a.txt"), "bogus": 1}); !strings.Contains(out, needle) {
			t.Errorf("an unknown argument was not ignored: %q", out)
		}
	})
}

// TestSandboxRefusals tries every escape of SPEC §4 through the tools.
func TestSandboxRefusals(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect(tr.root)
		outside := "outside allowed directories: " + tr.root // a refusal names the roots (SPEC §2)
		for _, p := range []string{
			filepath.Join(tr.evil, "x.txt"),           // prefix sibling
			tr.root + "/../outside/secret.txt",        // .. traversal
			tr.root + "/sub/../../outside/secret.txt", // deeper ..
			tr.path("link-out"),                       // file symlink out
			tr.path("dir-out/secret.txt"),             // dir symlink out
			tr.path("dir-out/nested/more-secret.txt"), // below a dir symlink out
			tr.path("dangling-out"),                   // dangling link out
		} {
			mustFail(t, cs, "fs_read", map[string]any{"file_path": p}, outside)
			mustFail(t, cs, "fs_write", map[string]any{"file_path": p, "content": "pwned"}, outside)
			mustFail(t, cs, "fs_edit", map[string]any{"file_path": p, "old_string": "secret", "new_string": "pwned"}, outside)
		}
		mustFail(t, cs, "fs_write", map[string]any{"file_path": tr.path("dir-out/new.txt"), "content": "pwned"}, outside)
		mustFail(t, cs, "fs_read", map[string]any{"file_path": tr.path("a.txt") + "\x00.png"}, "NUL byte")
		mustFail(t, cs, "fs_read", map[string]any{"file_path": "../outside/secret.txt"}, "path must be absolute")
		// %2e%2e in a plain path is a name, not a traversal.
		mustFail(t, cs, "fs_read", map[string]any{"file_path": tr.root + "/%2e%2e/outside/secret.txt"}, "file not found")
		tr.assertOutsideUntouched(t)
	})
}

func TestRootThroughSymlinkByBothNames(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect(tr.rootlink)
		for _, p := range []string{filepath.Join(tr.rootlink, "a.txt"), tr.path("a.txt")} {
			if out := mustCall(t, cs, "fs_read", map[string]any{"file_path": p}); !strings.Contains(out, needle) {
				t.Fatalf("read %s = %q", p, out)
			}
		}
		mustFail(t, cs, "fs_read", map[string]any{"file_path": tr.rootlink + "_evil/x"}, "outside allowed directories")
	})
}

// TestMetaAllowedDirsNarrows: with DIRs, _meta.allowed_dirs narrows them
// over HTTP (any token holder can send it) and adds to them over stdio, as
// in fsMCP (SPEC §2).
func TestMetaAllowedDirsNarrows(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect(tr.root)
		stdio := strings.HasSuffix(t.Name(), "/stdio")
		meta := map[string]any{"allowed_dirs": []any{tr.path("sub")}}
		res, err := callRaw(cs, "fs_read", map[string]any{"file_path": tr.path("a.txt")}, meta)
		if stdio {
			if err != nil || res.IsError {
				t.Fatalf("over stdio allowed_dirs adds to the DIRs: %v %q", err, testenv.Text(res))
			}
			res, err = callRaw(cs, "fs_read", map[string]any{"file_path": filepath.Join(tr.outside, "secret.txt")}, map[string]any{"allowed_dirs": []any{tr.outside}})
			if err != nil || res.IsError {
				t.Fatalf("over stdio allowed_dirs adds a directory: %v %q", err, testenv.Text(res))
			}
			return
		}
		if err != nil || !res.IsError || !strings.HasSuffix(testenv.Text(res), "outside allowed directories: "+tr.path("sub")) {
			t.Fatalf("narrowed call read a file outside allowed_dirs (or did not name them): %v %q", err, testenv.Text(res))
		}
		res, err = callRaw(cs, "fs_read", map[string]any{"file_path": tr.path("sub/c.go")}, meta)
		if err != nil || res.IsError {
			t.Fatalf("narrowed call refused its own dir: %v %q", err, testenv.Text(res))
		}
		res, _ = callRaw(cs, "fs_read", map[string]any{"file_path": filepath.Join(tr.outside, "secret.txt")}, map[string]any{"allowed_dirs": []any{tr.outside}})
		if !res.IsError {
			t.Fatal("_meta.allowed_dirs widened the roots without --trust-meta")
		}
	})
}

func TestTrustMetaWidens(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect("--trust-meta", tr.root)
		res, err := callRaw(cs, "fs_read", map[string]any{"file_path": filepath.Join(tr.outside, "secret.txt")}, map[string]any{"allowed_dirs": []any{tr.outside}})
		if err != nil || res.IsError {
			t.Fatalf("--trust-meta did not add the root: %v %q", err, testenv.Text(res))
		}
	})
}

func TestContextSchemaAdvertised(t *testing.T) {
	tr := newTree(t)
	for _, m := range modes(t) {
		// The legacy handshake, as most hosts speak it today.
		cmd := exec.Command(binary, tr.root)
		cmd.Env = append(os.Environ(), "PATH="+m.path)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
		line, err := bufio.NewReader(stdout).ReadString('\n')
		stdin.Close()
		cmd.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(line, `"contextSchema":{"allowed_dirs":{`) || !strings.Contains(line, `"ui":"directory-list"`) {
			t.Fatalf("initialize answer lacks serverInfo.contextSchema: %s", line)
		}
	}
	// The 2026-07-28 protocol's server/discover carries serverInfo in _meta.
	cmd := exec.Command(binary, tr.root)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	stdin.Close()
	cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	var disc struct {
		Result struct {
			Meta map[string]struct {
				Name          string
				ContextSchema map[string]any
			} `json:"_meta"`
		}
	}
	if err := json.Unmarshal([]byte(line), &disc); err != nil {
		t.Fatal(err)
	}
	if info := disc.Result.Meta["io.modelcontextprotocol/serverInfo"]; info.Name != "fsmcp" || info.ContextSchema["allowed_dirs"] == nil {
		t.Fatalf("server/discover lacks serverInfo.contextSchema: %s", line)
	}
}

func TestStartupRoots(t *testing.T) {
	tr := newTree(t)
	cmd := exec.Command(binary, filepath.Join(tr.base, "missing"))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("no usable root: exit = %v, want 2; output: %s", err, out)
	}
	if !strings.Contains(string(out), "no usable allowed directory") {
		t.Fatalf("no clear message: %s", out)
	}
	// One missing root among good ones is skipped with a warning.
	m := modes(t)[0]
	cs := connectStdio(t, m, filepath.Join(tr.base, "missing"), tr.root)
	mustCall(t, cs, "fs_read", map[string]any{"file_path": tr.path("a.txt")})
}
