//lint:file-ignore SA1019 MCP roots are deprecated by the 2026-07-28 protocol, but hosts on the legacy protocol still send them.

package integration

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: p}).String() }

// TestClientRootsReplaceDefault: started without a DIR, fsmcp takes the
// client's MCP roots as the allowed set and follows roots/list_changed.
func TestClientRootsReplaceDefault(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	cmd := exec.Command(binary)
	cmd.Dir = tr.evil // the default root, were the client's roots ignored
	cmd.Env = append(os.Environ(), "PATH="+m.path)
	cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
	client := newClient()
	client.AddRoots(&mcp.Root{URI: fileURI(tr.root), Name: "project"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	// Roots exist only in the legacy (initialize) protocol.
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	mustCall(t, cs, "fs_read", map[string]any{"file_path": tr.path("a.txt")})
	mustFail(t, cs, "fs_read", map[string]any{"file_path": tr.evil + "/x.txt"}, "outside allowed directories: "+tr.root)
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "MCP roots") {
		t.Errorf("instructions without a DIR do not say how roots are given: %q", got)
	}

	client.AddRoots(&mcp.Root{URI: fileURI(tr.path("sub"))})
	client.RemoveRoots(fileURI(tr.root))
	deadline := time.Now().Add(time.Minute) // only bounds a hang
	for {
		out, isErr := call(t, cs, "fs_read", map[string]any{"file_path": tr.path("a.txt")})
		if isErr {
			// The refusal names the client's new roots.
			if want := "outside allowed directories: " + tr.path("sub"); !strings.HasSuffix(out, want) {
				t.Errorf("refusal after roots/list_changed = %q, want it to end %q", out, want)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("roots/list_changed was not followed: a.txt still readable: %q", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mustCall(t, cs, "fs_read", map[string]any{"file_path": tr.path("sub/c.go")})
}
