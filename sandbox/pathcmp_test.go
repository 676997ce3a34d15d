package sandbox

import "testing"

// TestCutPrefixUpperComparesAsWindows pins the comparison Windows paths
// get: case-insensitive by upper case, drive letters included, whole
// runes, and no folding beyond upper case.
func TestCutPrefixUpperComparesAsWindows(t *testing.T) {
	for _, c := range []struct {
		p, prefix, rest string
		ok              bool
	}{
		{`c:\ws\x.txt`, `C:\ws\`, `x.txt`, true},
		{`C:\WS\Sub\x`, `c:\ws\`, `Sub\x`, true},
		{`C:\wsx\x`, `C:\ws\`, ``, false},
		{`C:\ÄRGER\a`, `C:\ärger\`, `a`, true},
		{"C:\\\u212a\\a", `C:\k\`, ``, false}, // Kelvin sign: upper case is itself, not K
		{`C:\w`, `C:\ws\`, ``, false},
		{`D:\ws\x`, `C:\ws\`, ``, false},
	} {
		rest, ok := cutPrefixUpper(c.p, c.prefix)
		if rest != c.rest || ok != c.ok {
			t.Errorf("cutPrefixUpper(%q, %q) = %q, %v; want %q, %v", c.p, c.prefix, rest, ok, c.rest, c.ok)
		}
	}
}
