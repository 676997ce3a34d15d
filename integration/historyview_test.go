//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// TestNarrowedClientSeesNothingOutsideThroughHistory (issue 47, item 2):
// client A (the whole root) runs one command that removes priv/secret.txt
// and writes pub/n.txt. Client B, narrowed to pub by _meta.allowed_dirs,
// lists the history and asks for that entry with its diff: it sees
// pub/n.txt and "1 change outside your directories", never the private
// file's name or old content; its undo of the entry is refused without
// naming it and changes nothing. Over HTTP (where _meta narrows), in
// the session era and the stateless.
func TestNarrowedClientSeesNothingOutsideThroughHistory(t *testing.T) {
	attack(t)
	m := modes(t)[0]
	for _, era := range []string{"session", "stateless"} {
		t.Run(era, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			priv, pub := filepath.Join(root, "priv"), filepath.Join(root, "pub")
			os.MkdirAll(priv, 0o755)
			os.MkdirAll(pub, 0o755)
			write(t, filepath.Join(priv, "secret.txt"), "TOPSECRET-CONTENT\n")
			var cs *mcp.ClientSession
			if era == "session" {
				cs = connectHTTP(t, m, root)
			} else {
				url, _ := startHTTP(t, m)
				cs = connectStatelessRoots(t, url, false, nil, fileURI(root))
			}
			mustCall(t, cs, "fs_bash", map[string]any{"command": "rm " + filepath.Join(priv, "secret.txt") + "; echo n > " + filepath.Join(pub, "n.txt")})
			whole := mustCall(t, cs, "fs_history", map[string]any{"path": root})
			id := strings.Fields(whole)[0]
			if !strings.Contains(whole, "secret.txt") {
				t.Fatalf("the whole root's history does not name the private file:\n%s", whole)
			}
			narrow := map[string]any{"allowed_dirs": []any{pub}}
			leaks := func(what string, args map[string]any) (*mcp.CallToolResult, string) {
				t.Helper()
				res, err := callRaw(cs, what, args, narrow)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				text := testenv.Text(res)
				if strings.Contains(text, "secret") || strings.Contains(text, "TOPSECRET") || strings.Contains(text, "priv") {
					t.Errorf("%s %v, narrowed to pub, shows the private file:\n%s", what, args, text)
				}
				return res, text
			}
			_, list := leaks("fs_history", map[string]any{})
			if !strings.Contains(list, "n.txt") || !strings.Contains(list, "1 change outside your directories") {
				t.Errorf("fs_history narrowed to pub:\n%s", list)
			}
			_, one := leaks("fs_history", map[string]any{"id": id})
			if !strings.Contains(one, "+n") {
				t.Errorf("fs_history id narrowed to pub has no diff of n.txt:\n%s", one)
			}
			res, text := leaks("fs_undo", map[string]any{"id": id})
			if !res.IsError || !strings.Contains(text, "outside your directories") {
				t.Errorf("fs_undo narrowed to pub was not refused: %s", text)
			}
			if _, err := os.Stat(filepath.Join(pub, "n.txt")); err != nil {
				t.Errorf("the refused undo removed pub/n.txt: %v", err)
			}
			if _, err := os.Stat(filepath.Join(priv, "secret.txt")); err == nil {
				t.Error("the refused undo brought the private file back")
			}
			// The whole root's client undoes it whole.
			mustCall(t, cs, "fs_undo", map[string]any{"id": id})
			if readFileOr(filepath.Join(priv, "secret.txt")) != "TOPSECRET-CONTENT\n" {
				t.Error("the whole root's undo did not bring the private file back")
			}
		})
	}
}
