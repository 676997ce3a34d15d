package pattern

import (
	"regexp/syntax"
	"testing"
)

func TestNeedsNonASCII(t *testing.T) {
	for pat, want := range map[string]bool{
		`\p{Greek}`: true, `\p{Greek}|a`: false, `a\p{Han}`: true, `(?i)ſ`: false, `(?i)é`: true,
		`\w`: false, `[^a]`: false, `x*é`: true, `(é)?`: false, `é{2,}`: true,
	} {
		re, err := syntax.Parse(pat, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := NeedsNonASCII(re.Simplify()); got != want {
			t.Errorf("%q: %v, want %v", pat, got, want)
		}
	}
}
