package toolkit

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"testing"
)

// TestStagesLiveWhereTheTableSays: each row of the stages table names
// the file its stage is written in; a stage moved or renamed without
// its row, or two rows of one name, fail here, so the table stays the
// map of a call's way.
func TestStagesLiveWhereTheTableSays(t *testing.T) {
	src, err := os.ReadFile("pipeline.go")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`\{"([^"]+)",\s*(\w+)\},\s*// (\w+\.go):`).FindAllStringSubmatch(string(src), -1)
	if len(rows) != len(stages) {
		t.Fatalf("pipeline.go has %d commented rows, stages %d: every row says its file", len(rows), len(stages))
	}
	seen := map[string]bool{}
	for i, s := range stages {
		if seen[s.name] {
			t.Errorf("two stages named %q", s.name)
		}
		seen[s.name] = true
		if rows[i][1] != s.name {
			t.Errorf("row %d: %q in the source, %q in stages", i, rows[i][1], s.name)
		}
		file, _ := runtime.FuncForPC(reflect.ValueOf(s.run).Pointer()).FileLine(reflect.ValueOf(s.run).Pointer())
		if got := filepath.Base(file); got != rows[i][3] {
			t.Errorf("stage %q is written in %s, its row says %s", s.name, got, rows[i][3])
		}
	}
}
