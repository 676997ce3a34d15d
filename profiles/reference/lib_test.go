package reference

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/files"
)

// TestOfficialLibCases runs the official server's lib tests that state
// facts (applyFileEdits results and formatSize texts, extracted as data
// into testdata/lib-cases.json) against the core edit and this profile's
// size text. (The official CRLF case writes the file back with LF endings:
// ApplyFlexEdits gives the same LF text, and FlexEditFile keeps CRLF.)
func TestOfficialLibCases(t *testing.T) {
	raw, err := os.ReadFile("testdata/lib-cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var lib struct {
		FormatSize     [][2]any
		ApplyFileEdits []struct {
			Test, Content, Written, Error string
			Edits                         []struct{ OldText, NewText string }
		}
	}
	if err := json.Unmarshal(raw, &lib); err != nil {
		t.Fatal(err)
	}
	for _, c := range lib.FormatSize {
		if got := formatSize(int64(c[0].(float64))); got != c[1] {
			t.Errorf("formatSize(%v) = %q, want %q", c[0], got, c[1])
		}
	}
	for _, c := range lib.ApplyFileEdits {
		var edits []files.FlexEdit
		for _, e := range c.Edits {
			edits = append(edits, files.FlexEdit{Old: e.OldText, New: e.NewText})
		}
		_, got, err := files.ApplyFlexEdits(c.Content, edits)
		if c.Error != "" {
			if err == nil || !strings.Contains(err.Error(), c.Error) {
				t.Errorf("%s: error %v, want %q", c.Test, err, c.Error)
			}
			continue
		}
		if err != nil || got != c.Written {
			t.Errorf("%s: %q, %v; want %q", c.Test, got, err, c.Written)
		}
	}
	t.Logf("official lib cases: %d formatSize, %d applyFileEdits", len(lib.FormatSize), len(lib.ApplyFileEdits))
}
