package fsmcp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
)

// TestReadSaysTheLineCap: fs_read cuts a line at backend.MaxLine, the one
// cap of a content line, and its description says that number.
func TestReadSaysTheLineCap(t *testing.T) {
	if d := Read().Def.Description; !strings.Contains(d, "lines over "+strconv.Itoa(backend.MaxLine)+" characters are cut") {
		t.Errorf("fs_read's description does not say the cap of %d characters: %s", backend.MaxLine, d)
	}
}
