package escape

import "testing"

func TestNameEscapesControlCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"plain/name.go":       "plain/name.go",
		"sp\n/etc/passwd":     `sp\n/etc/passwd`,
		"a\tb\rc":             `a\tb\rc`,
		"bell\x07del\x7f":     `bell\x07del\x7f`,
		"caf\u00e9 \u00fcber": "caf\u00e9 \u00fcber",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Name(`back\slash`); backslashEscaped && got != `back\\slash` {
		t.Errorf("Name(%q) = %q, want the backslash doubled", `back\slash`, got)
	}
}
