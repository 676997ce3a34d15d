package integration

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectStdioEnv is connectStdio with extra environment variables.
func connectStdioEnv(t *testing.T, m mode, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(append(os.Environ(), "PATH="+m.path), env...)
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

// TestLocalCoworkTrashNeverFollowsALinkOut: with LocalCowork's defaults
// (the allowed path is $HOME, the trash $HOME/.localcowork/trash), an
// agent that moves a symlink to outside into $HOME/.localcowork (or puts
// one at the trash itself) cannot make delete_file put its files outside:
// the delete is refused and the file stays where it was.
func TestLocalCoworkTrashNeverFollowsALinkOut(t *testing.T) {
	attack(t)
	tr := newTree(t)
	m := modes(t)[0]
	home := tr.path("home")
	write(t, filepath.Join(home, "keep"), "")
	cs := connectStdioEnv(t, m, []string{"HOME=" + home, "LOCALCOWORK_DATA_DIR=", "LOCALCOWORK_ALLOWED_PATHS=" + home}, "--profile", "localcowork")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lc := func(name string, args map[string]any) error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "filesystem." + name, Arguments: args})
		return err
	}
	for _, at := range []string{".localcowork", ".localcowork/trash"} {
		os.RemoveAll(filepath.Join(home, ".localcowork"))
		os.MkdirAll(filepath.Dir(filepath.Join(home, at)), 0o755)
		symlink(t, tr.outside, filepath.Join(home, "evil-link"))
		if err := lc("move_file", map[string]any{"source": filepath.Join(home, "evil-link"), "destination": filepath.Join(home, at)}); err != nil {
			t.Fatalf("move_file the link to %s: %v", at, err)
		}
		payload := filepath.Join(home, "payload.sh")
		if err := lc("write_file", map[string]any{"path": payload, "content": "#!/bin/sh\nid\n"}); err != nil {
			t.Fatal(err)
		}
		if err := lc("delete_file", map[string]any{"path": payload}); err == nil {
			t.Errorf("link at %s: delete_file succeeded", at)
		}
		if _, err := os.Stat(payload); err != nil {
			t.Errorf("link at %s: the file is gone: %v", at, err)
		}
		tr.assertOutsideUntouched(t)
	}
	// A real data directory in $HOME works, made 0700.
	os.RemoveAll(filepath.Join(home, ".localcowork"))
	if err := lc("delete_file", map[string]any{"path": filepath.Join(home, "payload.sh")}); err != nil {
		t.Fatalf("delete_file with a real trash: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, ".localcowork", "trash")); len(entries) != 1 {
		t.Errorf("trash holds %v, want the payload", entries)
	}
}

// TestEmptyDirArgumentExitsWithUsage: started in /, `fsmcp ""`,
// `--allowed-dir=` and LocalCowork's LOCALCOWORK_ALLOWED_PATHS with an
// empty entry exit with status 2 and a sentence naming the empty
// argument; none serves the working directory.
func TestEmptyDirArgumentExitsWithUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{""}, "", "DIR argument is empty"},
		{[]string{"--allowed-dir="}, "", "--allowed-dir is empty"},
		{[]string{"--profile", "localcowork"}, "LOCALCOWORK_ALLOWED_PATHS=/tmp:", "LOCALCOWORK_ALLOWED_PATHS"},
		{[]string{"--profile", "localcowork"}, "LOCALCOWORK_ALLOWED_PATHS=:/tmp", "LOCALCOWORK_ALLOWED_PATHS"},
		{[]string{"--profile", "localcowork"}, "LOCALCOWORK_ALLOWED_PATHS=/tmp::/tmp", "LOCALCOWORK_ALLOWED_PATHS"},
	} {
		cmd := exec.Command(binary, c.args...)
		cmd.Dir = "/"
		cmd.Env = append(os.Environ(), c.env)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), c.want) {
			t.Errorf("%q %s: got %v, %s; want status 2 naming %q", c.args, c.env, err, out, c.want)
		}
	}
}

// TestReadOnlyRefusesDirectMethods: --read-only is one rule for tools and
// direct methods: with the catalog profile neither the catalog/create
// tool nor the direct method catalog/create writes the catalog.
func TestReadOnlyRefusesDirectMethods(t *testing.T) {
	tr := newTree(t)
	out := tr.path("ro-catalog.tsv")
	s := startRaw(t, "--profile", "catalog", "--read-only", tr.root)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"catalog/create","params":{"target_dir":"` + tr.path("sub") + `","output_file":"` + out + `"}}`)
	if m := s.next(); m["error"] == nil {
		t.Errorf("the direct method under --read-only: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"catalog/create","arguments":{"target_dir":"` + tr.path("sub") + `","output_file":"` + out + `"}}}`)
	if m := s.next(); m["error"] == nil && !strings.Contains(toJSON(m), `"isError":true`) {
		t.Errorf("the tool under --read-only: %v", m)
	}
	if _, err := os.Lstat(out); err == nil {
		t.Fatal("--read-only wrote the catalog")
	}
}

// TestEveryListingEscapesControlCharactersInNames: a directory named
// "sp\n" holding etc/passwd cannot forge an "/etc/passwd" line, nor break
// a line, in any listing: fs_list, reference list_directory,
// list_directory_with_sizes and search_files, peekaboo search_path and
// search_content. Each prints the name escaped as fs_glob and fs_grep do.
func TestEveryListingEscapesControlCharactersInNames(t *testing.T) {
	attack(t)
	tr := newTree(t)
	dir := tr.path("names")
	write(t, filepath.Join(dir, "sp\n", "etc", "passwd"), "root:x:0:0 "+needle+"\n")
	m := modes(t)[0]
	fsmcp := connectStdio(t, m, dir)
	ref := connectStdio(t, m, "--profile", "reference", dir)
	peek := connectStdio(t, m, "--profile", "peekaboo", dir)
	outs := map[string]string{
		"fs_list":                   mustCall(t, fsmcp, "fs_list", map[string]any{"path": dir, "depth": 5}),
		"list_directory":            mustCall(t, ref, "list_directory", map[string]any{"path": dir}),
		"list_directory_with_sizes": mustCall(t, ref, "list_directory_with_sizes", map[string]any{"path": dir}),
		"search_files":              mustCall(t, ref, "search_files", map[string]any{"path": dir, "pattern": "**/passwd"}),
		"search_path":               mustCall(t, peek, "search_path", map[string]any{"pattern": "**/passwd"}),
		"search_content":            mustCall(t, peek, "search_content", map[string]any{"query": needle}),
	}
	for tool, out := range outs {
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "/etc/passwd") || strings.HasPrefix(line, "etc/passwd") || strings.HasSuffix(line, " sp") {
				t.Errorf("%s: a name forged or broke the line %q in:\n%s", tool, line, out)
			}
		}
		if !strings.Contains(out, `sp\n`) {
			t.Errorf("%s: the escaped name is missing from:\n%s", tool, out)
		}
	}
}

// TestAuditLogErrorHoldsNoContents: --audit-log's error field is the
// error's kind and path: a failed command's output (fs_bash `cat .env;
// exit 1`) and an edit's unmatched old text (reference edit_file, fs_edit)
// never reach the log.
func TestAuditLogErrorHoldsNoContents(t *testing.T) {
	tr := newTree(t)
	const secret = "TOKEN=zzsecret42"
	write(t, tr.path(".env"), secret+"\n")
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	m := modes(t)[0]
	cs := connectStdio(t, m, "--shell", "on", "--audit-log", log, tr.root)
	call(t, cs, "fs_bash", map[string]any{"command": "cat .env; exit 1"})
	call(t, cs, "fs_edit", map[string]any{"file_path": tr.path(".env"), "old_string": secret + "x", "new_string": "y"})
	ref := connectStdio(t, m, "--profile", "reference", "--audit-log", log, tr.root)
	call(t, ref, "edit_file", map[string]any{"path": tr.path(".env"), "edits": []any{map[string]any{"oldText": secret + "x", "newText": "y"}}})
	cs.Close()
	ref.Close()
	data := readFile(t, log)
	if strings.Count(data, "\n") < 3 {
		t.Fatalf("audit log has too few lines:\n%s", data)
	}
	if strings.Contains(data, "zzsecret42") {
		t.Errorf("the audit log copied file contents:\n%s", data)
	}
}

// TestRebindingPageCannotExitThePlainFront: with --profile catalog
// --no-auth, a DNS-rebinding page (Host and Origin evil.example:PORT)
// posting the plain front's {"method":"exit"} — or any other method — is
// refused with 403 before the method is looked at, and the server stays
// up; the same exit from loopback still ends it.
func TestRebindingPageCannotExitThePlainFront(t *testing.T) {
	tr := newTree(t)
	url, cmd := startHTTP(t, modes(t)[0], "--profile", "catalog", tr.root)
	host := strings.TrimPrefix(strings.TrimSuffix(url, "/mcp"), "http://")
	_, port, _ := strings.Cut(host, ":")
	send := func(body string, hdr map[string]string) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	evil := map[string]string{"Host": "evil.example:" + port, "Origin": "http://evil.example:" + port}
	for _, body := range []string{`{"jsonrpc":"2.0","method":"exit"}`, `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`} {
		if code := send(body, evil); code != http.StatusForbidden {
			t.Errorf("%s from a rebinding page: %d, want 403", body, code)
		}
	}
	if code := send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, nil); code != http.StatusOK {
		t.Fatalf("the server stopped answering after the refused exit: %d", code)
	}
	if code := send(`{"jsonrpc":"2.0","method":"exit"}`, nil); code != http.StatusAccepted {
		t.Errorf("exit from loopback: %d, want 202", code)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit from loopback: %v", err)
	}
}
