package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/profile"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/tools"
)

// The wire form of resources/list carries peekaboo's top-level metadata
// next to _meta.
func TestListWireMetadata(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("abc"), 0o644)
	sb, _ := sandbox.New([]string{dir})
	defer sb.Close()
	r := newResources(&profile.Env{Sandbox: sb, Limits: profile.Limits{MaxFileSize: 1 << 20}, Sessions: profile.NewSessions()}, 0, tools.Table().Resources)
	res, err := r.list(context.Background(), sb, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want := `"metadata":{"hasChildren":false,"size":3,"type":"file"}`
	if !strings.Contains(string(raw), want) || !strings.Contains(string(raw), `"_meta":{"hasChildren":false,"size":3,"type":"file"}`) {
		t.Errorf("wire form %s lacks %s", raw, want)
	}
}
