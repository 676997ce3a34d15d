package sandbox

import "testing"

// TestWithinAttacksWindows: Within as Windows compares names: without
// regard to case, drive letters included, and by whole names.
func TestWithinAttacksWindows(t *testing.T) {
	for _, c := range []struct {
		root, path, rel string
		ok              bool
	}{
		{`C:\ws`, `c:\WS\x`, "x", true},
		{`C:\ws`, `C:\ws`, ".", true},
		{`C:\ws\`, `C:\ws`, ".", true},
		{`C:\ws`, `C:\ws-evil`, "", false},
		{`C:\ws`, `C:\WS-EVIL\x`, "", false},
		{`C:\ws`, `C:\ws\..\wsx`, "", false},
		{`C:\ws`, `D:\ws\x`, "", false},
		{`C:\`, `C:\x\y`, "x/y", true},
		{`C:\ws`, `C:\ws\..x`, "..x", true},
	} {
		rel, ok := Within(c.root, c.path)
		if rel != c.rel || ok != c.ok {
			t.Errorf("Within(%q, %q) = %q, %v; want %q, %v", c.root, c.path, rel, ok, c.rel, c.ok)
		}
	}
}
