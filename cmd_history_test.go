package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestJournalsForJudgesByWholeNames: the DIRs whose journals concern a
// directory are those that hold it (nearest first) and those inside it,
// by whole names: a sibling sharing a prefix (/p/root-evil beside
// /p/root) is neither, and a directory whose name begins with two dots
// (/p/root/..x) is inside its parent (it was taken for outside).
func TestJournalsForJudgesByWholeNames(t *testing.T) {
	jdir := t.TempDir()
	for i, base := range []string{"/p/root", "/p/root-evil", "/p/root/..x", "/p/root/..x/deep", "/p"} {
		d := filepath.Join(jdir, string(rune('a'+i)))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "root"), []byte(base+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		dir  string
		want []string
	}{
		{"/p/root/..x", []string{"/p/root/..x", "/p/root", "/p", "/p/root/..x/deep"}},
		{"/p/root", []string{"/p/root", "/p", "/p/root/..x", "/p/root/..x/deep"}},
		{"/p/root-evil/a", []string{"/p/root-evil", "/p"}},
	} {
		got := journalsFor(jdir, c.dir)
		if !slices.Equal(got, c.want) {
			t.Errorf("journalsFor(%s) = %q; want %q", c.dir, got, c.want)
		}
	}
}
