package escape

import "testing"

func TestNameEscapesControlCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"plain/name.go":       "plain/name.go",
		"sp\n/etc/passwd":     `sp\n/etc/passwd`,
		"a\tb\rc":             `a\tb\rc`,
		"bell\x07del\x7f":     `bell\x07del\x7f`,
		"caf\u00e9 \u00fcber": "caf\u00e9 \u00fcber",
		"csi\u009b2J":         `csi\u009b2J`,
		"raw\x9bbyte":         `raw\x9bbyte`,
		"evil\u202etxt.exe":   `evil\u202etxt.exe`,
		"iso\u2066x\u2069":    `iso\u2066x\u2069`,
		"ls\u2028ps\u2029":    `ls\u2028ps\u2029`,
		"cut\xe2\x80":         `cut\xe2\x80`,
		"\u65e5\u672c.txt":    "\u65e5\u672c.txt",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Name(`back\slash`); backslashEscaped && got != `back\\slash` {
		t.Errorf("Name(%q) = %q, want the backslash doubled", `back\slash`, got)
	}
}

func TestTextKeepsLinesAndEscapesTheRest(t *testing.T) {
	in := "a\tb\nc\\d\x1b[2J\u009b\u202eé\xff\r"
	want := "a\tb\nc\\d\\x1b[2J\\u009b\\u202eé\\xff\\r"
	if got := Text(in); got != want {
		t.Errorf("Text(%q) = %q, want %q", in, got, want)
	}
}
