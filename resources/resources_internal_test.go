package resources

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

// A profile's resource shape decides MIME types, page size, the list's
// wire form, which URIs name which paths, and the errors of a read; the
// server still contains every path.
func TestShapeHooks(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	dir := filepath.Join(base, "root")
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("abc"), 0o644)
	os.WriteFile(filepath.Join(base, "secret"), []byte("no"), 0o644)
	sb, _ := sandbox.New([]string{dir})
	defer sb.Close()
	refused := &jsonrpc.Error{Code: 1, Message: "refused"}
	shape := &toolkit.ResourceShape{
		PageSize: 1,
		MIME:     func(name string, isDir bool) string { return "x/" + name },
		List: func(res *mcp.ListResourcesResult) mcp.Result {
			return toolkit.Reshape(res, func(m map[string]any) { m["shaped"] = true })
		},
		Path: func(uri string) (string, error) {
			rel, ok := strings.CutPrefix(uri, "rel:")
			if !ok {
				return "", refused
			}
			return rel, nil
		},
		Errors: func(err error) error {
			if k := fault.KindOf(err); k == fault.NotFound || k == fault.Outside {
				return &jsonrpc.Error{Code: 2, Message: k.String()}
			}
			return err
		},
	}
	r := New(&toolkit.Env{Default: sb, Settings: toolkit.Settings{Limits: toolkit.Limits{MaxFileSize: 1 << 20}}, Sessions: toolkit.NewSessions()}, 0, shape)
	res, err := r.list(context.Background(), sb, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res)
	for _, want := range []string{`"shaped":true`, `"mimeType":"x/f.txt"`, `"nextCursor"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("list %s lacks %s", raw, want)
		}
	}
	got, err := r.readURI(sb, "rel:f.txt")
	if err != nil || got.Contents[0].Text != "abc" || got.Contents[0].MIMEType != "x/f.txt" {
		t.Fatalf("read rel:f.txt: %v %+v", err, got)
	}
	if got, err := r.readURI(sb, "rel:"+filepath.Join(dir, "f.txt")); err != nil || got.Contents[0].Text != "abc" {
		t.Fatalf("read of an absolute path: %v", err)
	}
	for uri, code := range map[string]int64{"other:f.txt": 1, "rel:nope": 2, "rel:../secret": 2, "rel:" + filepath.Join(base, "secret"): 2} {
		var rpc *jsonrpc.Error
		if _, err := r.readURI(sb, uri); !errors.As(err, &rpc) || rpc.Code != code {
			t.Errorf("read %s: %v, want code %d", uri, err, code)
		}
	}
}
