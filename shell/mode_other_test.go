//go:build !unix

package shell

import (
	"strings"
	"testing"
)

// TestFsBashOffWhereItCannotRun pins that on Windows fs_bash is off by
// default (so it is not listed) and --shell on or sandboxed is refused
// with one sentence, rather than listed and failing on every call.
func TestFsBashOffWhereItCannotRun(t *testing.T) {
	if m := DefaultMode(); m != ModeOff {
		t.Errorf("DefaultMode() = %q, want off", m)
	}
	for _, m := range []Mode{ModeOn, ModeSandboxed} {
		err := CheckMode(m)
		if err == nil || !strings.Contains(err.Error(), "needs a Unix system") {
			t.Errorf("CheckMode(%q) = %v, want a refusal naming what fs_bash needs", m, err)
		}
	}
	if err := CheckMode(ModeOff); err != nil {
		t.Errorf("CheckMode(off) = %v", err)
	}
	if d := Describe(ModeOff); !strings.Contains(d, "needs a Unix system") {
		t.Errorf("Describe(off) = %q, want it to say why", d)
	}
}
