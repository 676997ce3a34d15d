package pattern

import (
	"github.com/fsmcp/fsmcp/backend"
	"strings"
	"testing"
)

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		q    backend.GrepQuery
		want string
	}{
		{backend.GrepQuery{Pattern: "foo(?=bar)"}, "look-around"},
		{backend.GrepQuery{Pattern: "(?<!x)y"}, "look-around"},
		{backend.GrepQuery{Pattern: `(a)\1`}, "backreference"},
		{backend.GrepQuery{Pattern: "a\nb"}, "multiline"},
		{backend.GrepQuery{Pattern: "(unclosed"}, "missing closing )"},
	} {
		_, err := Compile(tc.q)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%q) error = %v, want it to mention %q", tc.q.Pattern, err, tc.want)
		}
	}
	if _, err := Compile(backend.GrepQuery{Pattern: "a\nb", Multiline: true}); err != nil {
		t.Errorf("multiline newline: %v", err)
	}
	if _, err := Compile(backend.GrepQuery{Pattern: "(?=", FixedStrings: true}); err != nil {
		t.Errorf("fixed strings are never parsed as regex: %v", err)
	}
}

func TestCompileSemantics(t *testing.T) {
	for _, tc := range []struct {
		q      backend.GrepQuery
		text   string
		want   string // first match, "" for none
		lit    string
		noLine bool
	}{
		{q: backend.GrepQuery{Pattern: `caf\w`}, text: "café", want: "café", lit: "caf"},
		{q: backend.GrepQuery{Pattern: `\d+`}, text: "x ٣٤ y", want: "٣٤"},
		{q: backend.GrepQuery{Pattern: `a\sb`}, text: "a\nb a\u00a0b", want: "a\u00a0b"},
		{q: backend.GrepQuery{Pattern: `a[^x]b`}, text: "a\nb", want: ""},
		{q: backend.GrepQuery{Pattern: `a.b`}, text: "a\nb", want: ""},
		{q: backend.GrepQuery{Pattern: `a.b`, Multiline: true}, text: "a\nb", want: "a\nb"},
		{q: backend.GrepQuery{Pattern: `^b$`}, text: "a\nb\nc", want: "b"},
		{q: backend.GrepQuery{Pattern: "A.B", FixedStrings: true}, text: "AxB A.B", want: "A.B", lit: "A.B"},
		{q: backend.GrepQuery{Pattern: "hello", IgnoreCase: true}, text: "HeLLo", want: "HeLLo", lit: "hello"},
		{q: backend.GrepQuery{Pattern: `foo(bar)+baz`}, text: "foobarbarbaz", want: "foobarbarbaz", lit: "baz"},
	} {
		p, err := Compile(tc.q)
		if err != nil {
			t.Fatalf("%q: %v", tc.q.Pattern, err)
		}
		if got := string(p.Re.Find([]byte(tc.text))); got != tc.want {
			t.Errorf("%q on %q: matched %q, want %q", tc.q.Pattern, tc.text, got, tc.want)
		}
		if tc.lit != "" && !strings.EqualFold(string(p.Lit), tc.lit) && !strings.Contains(tc.q.Pattern, string(p.Lit)) {
			t.Errorf("%q: required literal %q, want %q", tc.q.Pattern, p.Lit, tc.lit)
		}
	}
}

func TestForRG(t *testing.T) {
	for in, want := range map[string]string{
		`\bfoo\b`:  `(?-u:\b)foo(?-u:\b)`,
		`\Bx`:      `(?-u:\B)x`,
		`[\b]`:     `[\b]`,
		`\\b`:      `\\b`,
		`no slash`: `no slash`,
		`(?<n>x)`:  `(?P<n>x)`,
		`\Qa.b\E+`: `a\.b+`,
		`\Qa.b`:    `a\.b`,
	} {
		if got := ForRG(backend.GrepQuery{Pattern: in}); got != want {
			t.Errorf("ForRG(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnicodePerlClasses(t *testing.T) {
	for in, want := range map[string]string{
		`\w+`:           "[" + uniWord + "]+",
		`[\w-]`:         "[" + uniWord + "-]",
		`\W`:            "[^" + uniWord + "]",
		`[\W]`:          `[\W]`, // left to Go inside brackets
		`\d\D`:          uniDigit + `\P{Nd}`,
		`\Q\w\E\s`:      `\Q\w\E[` + uniSpace + "]",
		`[[:alpha:]\s]`: "[[:alpha:]" + uniSpace + "]",
		`\\w`:           `\\w`,
	} {
		if got := unicodePerlClasses(in); got != want {
			t.Errorf("unicodePerlClasses(%q) = %q, want %q", in, got, want)
		}
	}
}
