package escape

import "testing"

// TestWindowsPathsPrintAsTheSystemSpellsThem pins that a Windows path keeps
// its single backslashes (C:\ws\lf.txt, not C:\\ws\\lf.txt).
func TestWindowsPathsPrintAsTheSystemSpellsThem(t *testing.T) {
	for in, want := range map[string]string{
		`C:\ws\lf.txt`: `C:\ws\lf.txt`,
		`C:\ws\new`:    `C:\ws\new`,
		"C:\\ws\\a\tb": `C:\ws\a\tb`,
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}
