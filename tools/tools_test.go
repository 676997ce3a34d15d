package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestToolSnapshots fails when a tool's schema, description or annotations
// change without its snapshot in __toolsnaps__ being updated, so a renamed
// parameter never slips out unnoticed. Update with:
//
//	UPDATE_TOOLSNAPS=true go test ./tools/
func TestToolSnapshots(t *testing.T) {
	update := os.Getenv("UPDATE_TOOLSNAPS") == "true"
	seen := map[string]bool{}
	for _, tool := range All() {
		name := tool.Def.Name
		seen[name+".snap"] = true
		got, err := json.MarshalIndent(tool.Def, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		file := filepath.Join("__toolsnaps__", name+".snap")
		if update {
			if err := os.MkdirAll("__toolsnaps__", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s has no snapshot; run UPDATE_TOOLSNAPS=true go test ./tools/ and review the diff", name)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("%s's definition changed; if intended, run UPDATE_TOOLSNAPS=true go test ./tools/ and review the diff.\ngot:\n%s", name, got)
		}
	}
	snaps, _ := filepath.Glob(filepath.Join("__toolsnaps__", "*.snap"))
	for _, s := range snaps {
		if !seen[filepath.Base(s)] {
			t.Errorf("snapshot %s has no tool; delete it", s)
		}
	}
}

// TestEveryToolIsDescribed checks what a host relies on across all tools.
func TestEveryToolIsDescribed(t *testing.T) {
	names := map[string]bool{}
	for _, tool := range All() {
		d := tool.Def
		if names[d.Name] {
			t.Errorf("tool %s is listed twice", d.Name)
		}
		names[d.Name] = true
		if d.Description == "" {
			t.Errorf("%s: empty description", d.Name)
		}
		a := d.Annotations
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint must be set to false", d.Name)
		}
		if !a.ReadOnlyHint && a.DestructiveHint == nil {
			t.Errorf("%s: a writer must say whether it is destructive", d.Name)
		}
		if a.Title == "" {
			t.Errorf("%s: no title", d.Name)
		}
	}
}
