package index_test

import (
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/index"
	"github.com/fsmcp/fsmcp/backend/native"
	"github.com/fsmcp/fsmcp/backend/queue"
	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/server"
)

// late is a Searcher whose target is set after the server is built (the
// index needs the root the test environment makes).
type late struct{ backend.Searcher }

// TestOwnWritesSeenBeforeTheyReturn: through the MCP tools, a file
// fs_write creates or replaces and one fs_edit changes are found by the
// very next indexed fs_grep, though the index was built before them.
func TestOwnWritesSeenBeforeTheyReturn(t *testing.T) {
	proxy := &late{}
	e := testenv.New(t, testenv.WithServer(func(c *server.Config) { c.Search = queue.Stack{Searcher: proxy} }))
	for i := range 20 {
		e.Write("root/old/"+string(rune('a'+i))+".txt", "nothing here\n")
	}
	index.Settled()
	s := index.NewIndexed(t, native.New(), e.Root)
	proxy.Searcher = s
	q := backend.GrepQuery{Pattern: "FRESH_TOKEN", Paths: []string{e.Root}}
	if !s.Narrows(q) {
		t.Fatal("FRESH_TOKEN is not narrowed; the test would not exercise the index")
	}
	grep := func() string {
		return e.OK("fs_grep", map[string]any{"pattern": "FRESH_TOKEN", "path": e.Root, "output_mode": "count"})
	}
	e.OK("fs_write", map[string]any{"file_path": e.Root + "/old/b.txt", "content": "FRESH_TOKEN replaced\n"})
	if got := grep(); !strings.Contains(got, "old/b.txt:1") {
		t.Fatalf("after fs_write over an indexed file: %q", got)
	}
	e.OK("fs_write", map[string]any{"file_path": e.Root + "/new/n.txt", "content": "FRESH_TOKEN created\n"})
	if got := grep(); !strings.Contains(got, "new/n.txt:1") {
		t.Fatalf("after fs_write of a new file: %q", got)
	}
	e.OK("fs_edit", map[string]any{"file_path": e.Root + "/old/c.txt", "old_string": "nothing here", "new_string": "FRESH_TOKEN!"})
	if got := grep(); !strings.Contains(got, "old/c.txt:1") {
		t.Fatalf("after fs_edit to the same size: %q", got)
	}
	if got, want := index.Result(t, s, q), index.Result(t, native.New(), q); got != want {
		t.Fatalf("indexed\n%s\nunindexed\n%s", got, want)
	}
}
