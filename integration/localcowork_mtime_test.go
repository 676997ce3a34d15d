package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// LocalCowork's `modified` is Node's: the float milliseconds of fs.stat,
// Math.round-ed. Recorded from the original with touch -d: .122999999 and
// .122499999 are .123, .122400000 is .122 (truncating gave .122 for all).
func TestLocalCoworkModifiedIsNodesMillisecond(t *testing.T) {
	root := t.TempDir()
	want := map[string]string{
		"a.txt": "2026-01-02T03:04:10.123Z", // .122999999
		"b.txt": "2026-01-02T03:04:10.123Z", // .122499999
		"c.txt": "2026-01-02T03:04:10.122Z", // .122400000
		"d.txt": "2026-01-02T03:04:11.000Z", // .999500000
	}
	ns := map[string]int{"a.txt": 122999999, "b.txt": 122499999, "c.txt": 122400000, "d.txt": 999500000}
	for name, n := range ns {
		p := filepath.Join(root, name)
		write(t, p, "x")
		when := time.Date(2026, 1, 2, 3, 4, 10, n, time.UTC)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	s := startRawEnv(t, []string{"LOCALCOWORK_ALLOWED_PATHS=" + root}, "--profile", "localcowork")
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "call-1", "method": "tools/call",
		"params": map[string]any{"name": "filesystem.list_dir", "arguments": map[string]any{"path": root}}})
	s.send(string(call))
	m := s.next()
	text := fmt.Sprint(m["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
	var infos []struct{ Name, Modified string }
	if err := json.Unmarshal([]byte(text), &infos); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	if len(infos) != len(want) {
		t.Fatalf("got %d entries, want %d: %s", len(infos), len(want), text)
	}
	for _, in := range infos {
		if in.Modified != want[in.Name] {
			t.Errorf("%s: modified %s, want %s (the original's)", in.Name, in.Modified, want[in.Name])
		}
	}
}
