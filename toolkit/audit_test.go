package toolkit

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
)

type nopCloser struct{ strings.Builder }

func (*nopCloser) Close() error { return nil }

func TestAuditLine(t *testing.T) {
	var out nopCloser
	env := &Env{Settings: Settings{Audit: NewAudit(&out)}}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "fs_write",
		Arguments: json.RawMessage(`{"file_path":"/a/b","content":"SECRET","paths":["/x","/y"],"edits":[{"old":"SECRET"}]}`)}}
	cause := fault.Errorf(fault.NotFound, "/a/b", "no such file")
	env.record(context.Background(), req, time.Now(), ErrorText(cause), nil, cause)
	env.record(context.Background(), req, time.Now(), nil, InvalidParams("bad"), InvalidParams("bad"))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || strings.Contains(out.String(), "SECRET") {
		t.Fatalf("audit lines:\n%s", out.String())
	}
	var e AuditEntry
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil {
		t.Fatal(err)
	}
	if e.Tool != "fs_write" || e.Outcome != "isError" || e.Error != "not found: /a/b" ||
		strings.Join(e.ArgKeys, ",") != "content,edits,file_path,paths" || e.Paths["file_path"] != "/a/b" || len(e.Paths) != 2 {
		t.Errorf("entry %+v", e)
	}
	if err := json.Unmarshal([]byte(lines[1]), &e); err != nil || e.Outcome != "protocol error" || e.Code != -32602 {
		t.Errorf("protocol error entry %+v (%v)", e, err)
	}
}

// TestAuditErrorIsKindAndPathOnly: the audit line's error is the error's
// kind and path, never its text: an edit whose old text does not match
// quotes it, a failed command's error carries its output, and an isError
// answer (fs_bash's output) is not copied either.
func TestAuditErrorIsKindAndPathOnly(t *testing.T) {
	var out nopCloser
	env := &Env{Settings: Settings{Audit: NewAudit(&out)}}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "edit_file", Arguments: json.RawMessage(`{"path":"/r/.env"}`)}}
	for _, c := range []struct {
		res   *mcp.CallToolResult
		err   error
		cause error
		want  string
	}{
		{ErrorText(errors.New("x")), nil, fault.Errorf(fault.Invalid, "/r/.env", "could not find exact match for edit:\nTOKEN=SECRET"), "invalid: /r/.env"},
		{ErrorText(errors.New("x")), nil, errors.New("exit status 1: SECRET"), "other"},
		{&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "TOKEN=SECRET\nexit 1"}}}, nil, nil, ""},
		{nil, InvalidParams("bad value SECRET"), InvalidParams("bad value SECRET"), "invalid"},
	} {
		out.Reset()
		env.record(context.Background(), req, time.Now(), c.res, c.err, c.cause)
		var e AuditEntry
		if err := json.Unmarshal([]byte(out.String()), &e); err != nil || e.Error != c.want || strings.Contains(out.String(), "SECRET") {
			t.Errorf("cause %v: line %s (%v), want error %q", c.cause, out.String(), err, c.want)
		}
	}
}

func TestOpenAudit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "audit.jsonl")
	a, err := OpenAudit(p)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if fi, err := os.Stat(p); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Errorf("audit file %v %v", fi.Mode(), err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAudit(link); err == nil {
		t.Error("a symlinked audit log was opened")
	}
	if _, err := OpenAudit(dir); err == nil {
		t.Error("a directory was opened as the audit log")
	}
}
