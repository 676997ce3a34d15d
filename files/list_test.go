package files

import (
	"context"
	"slices"
	"testing"
)

// TestListSkipDirPrunesUnread: a directory SkipDir names is listed itself
// but never entered: nothing below it is listed or counted.
func TestListSkipDirPrunesUnread(t *testing.T) {
	at := officialRoot(t, map[string]string{
		"keep/a.txt":                   "a",
		"node_modules/pkg/index.js":    "x",
		"keep/node_modules/deep/b.txt": "b",
	})
	var asked []string
	l, err := List(context.Background(), at("."), ListOptions{Depth: 10, IncludeIgnored: true,
		SkipDir: func(rel string) bool {
			asked = append(asked, rel)
			return rel == "node_modules" || rel == "keep/node_modules"
		}})
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, e := range l.Entries {
		rels = append(rels, e.Rel)
	}
	want := []string{"keep", "keep/a.txt", "keep/node_modules", "node_modules"}
	slices.Sort(rels)
	if !slices.Equal(rels, want) || l.Total != len(want) {
		t.Fatalf("listed %v (total %d), want %v", rels, l.Total, want)
	}
	if slices.Contains(asked, "node_modules/pkg") || slices.Contains(asked, "keep/node_modules/deep") {
		t.Fatalf("a directory below a skipped one was reached: %v", asked)
	}
}
