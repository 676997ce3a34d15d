// Package profiletest holds the tests every profile runs: tool snapshots
// (a schema never changes unnoticed) and golden wire exchanges (requests
// and answers as a client sees them, through the real server).
package profiletest

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/toolkit"
)

// SnapFile is the snapshot file of a tool: its name with "/" escaped, so
// that catalog/create does not become a directory.
func SnapFile(dir, tool string) string {
	return filepath.Join(dir, url.PathEscape(tool)+".snap")
}

// Snapshots fails when a tool's definition (schema, description,
// annotations) differs from its snapshot in dir, or a snapshot has no
// tool. UPDATE_TOOLSNAPS=true rewrites them.
func Snapshots(t *testing.T, table *toolkit.Table, dir string) {
	t.Helper()
	update := os.Getenv("UPDATE_TOOLSNAPS") == "true"
	seen := map[string]bool{}
	for _, tool := range table.Tools {
		name := tool.Def.Name
		file := SnapFile(dir, name)
		seen[filepath.Base(file)] = true
		got, err := json.MarshalIndent(tool.Def, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		if update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s has no snapshot; run UPDATE_TOOLSNAPS=true go test on this package and review the diff", name)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("%s's definition changed; if intended, run UPDATE_TOOLSNAPS=true go test on this package and review the diff.\ngot:\n%s", name, got)
		}
	}
	snaps, _ := filepath.Glob(filepath.Join(dir, "*.snap"))
	for _, s := range snaps {
		if !seen[filepath.Base(s)] {
			t.Errorf("snapshot %s has no tool; delete it", s)
		}
	}
}

// Described checks what a host relies on across a profile's tools: unique
// names, a description, a title and explicit hints.
func Described(t *testing.T, table *toolkit.Table) {
	t.Helper()
	names := map[string]bool{}
	for _, tool := range table.Tools {
		d := tool.Def
		if names[d.Name] {
			t.Errorf("tool %s is listed twice", d.Name)
		}
		names[d.Name] = true
		if strings.TrimSpace(d.Description) == "" {
			t.Errorf("%s: empty description", d.Name)
		}
		if d.Annotations == nil {
			t.Errorf("%s: no annotations", d.Name)
		}
	}
}
