package backend

import (
	"strings"
	"testing"
)

func TestGlobAlternativesCountsWithoutExpanding(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    int
	}{
		{"**/*.go", 1},
		{"*.{ts,tsx}", 2},
		{"{src,lib}/**/*.{ts,tsx,js}", 6},
		{"{a,{b,c}}{d,e}", 6},
		{`\{a,b\}`, 1},
		{"[{,}]x", 1},
		{"{a,b", 2}, // unbalanced: ValidatePattern refuses it separately
		{strings.Repeat("{a,a}", 8), 256},
		{strings.Repeat("{a,a}", 9), MaxGlobAlternatives + 1},
		{strings.Repeat("{a,a}", 24) + "b", MaxGlobAlternatives + 1},
		{strings.Repeat("{a,{a,{a,a}}}", 40), MaxGlobAlternatives + 1},
	} {
		if got := GlobAlternatives(c.pattern); got != c.want {
			t.Errorf("GlobAlternatives(%q) = %d, want %d", c.pattern, got, c.want)
		}
	}
}

// The pattern of issue 18 item 12 took seconds per path in doublestar;
// it is refused before any path is matched, with one sentence.
func TestExponentialBracePatternIsRefused(t *testing.T) {
	p := strings.Repeat("{a,a}", 24) + "b"
	err := CheckGlob(p)
	if err == nil || !strings.Contains(err.Error(), "stands for more than 256 patterns") {
		t.Fatalf("CheckGlob = %v", err)
	}
	if _, err := NewFilter([]string{p}, nil, false); err == nil {
		t.Fatal("NewFilter accepted the pattern as a grep glob")
	}
	if err := CheckGlob(strings.Repeat("{a,a}", 8) + "b"); err != nil {
		t.Fatalf("256 alternatives refused: %v", err)
	}
	// An ignore file's line past the bound is dropped, not matched.
	var g Gitignore
	if g.addLine(p) {
		t.Fatal("an ignore line past the bound was kept")
	}
}
