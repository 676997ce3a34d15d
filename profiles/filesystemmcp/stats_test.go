package filesystemmcp_test

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles/filesystemmcp"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

// The stats object has the original's keys in its order, ISO times with
// milliseconds, the mode as three octal digits; list_files of a file is
// its stats, with include_stats each entry carries them.
func TestStats(t *testing.T) {
	e := testenv.New(t, testenv.WithServer(func(c *server.Config) {
		c.Profiles = []*toolkit.Table{filesystemmcp.Table()}
	}))
	os.Chmod(e.Path("root/a.txt"), 0o644)
	out := e.OK("list_files", map[string]any{"path": "a.txt"})
	keys := regexp.MustCompile(`(?m)^  "(\w+)":`).FindAllStringSubmatch(out, -1)
	var order []string
	for _, k := range keys {
		order = append(order, k[1])
	}
	want := []string{"path", "isFile", "isDirectory", "isSymbolicLink", "size", "atime", "mtime", "ctime", "birthtime", "mode", "uid", "gid"}
	if len(order) != len(want) {
		t.Fatalf("keys %v, want %v\n%s", order, want, out)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("keys %v, want %v", order, want)
		}
	}
	var st struct {
		Path, Mode, Mtime, Birthtime string
		IsFile                       bool
		Size                         int64
		UID                          int
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	iso := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	if st.Path != "a.txt" || st.Mode != "644" || !st.IsFile || st.Size != 6 || st.UID != os.Getuid() || !iso.MatchString(st.Mtime) || !iso.MatchString(st.Birthtime) {
		t.Errorf("stats %+v", st)
	}
	var items []struct {
		Path  string
		Stats map[string]any
	}
	if err := json.Unmarshal([]byte(e.OK("list_files", map[string]any{"path": "sub", "include_stats": true})), &items); err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Path != "sub/b.txt" || items[0].Stats["path"] != "sub/b.txt" || items[0].Stats["isFile"] != true {
		t.Errorf("include_stats: %+v", items)
	}
}
