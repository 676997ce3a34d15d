package ignore

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
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

// TestIgnoreClassesMatchAsTheGeneralMatcher: each fast class an ignore
// line compiles to (name, prefix, suffix, prefix+suffix, name glob with a
// required literal) answers as doublestar does on the line's whole glob.
func TestIgnoreClassesMatchAsTheGeneralMatcher(t *testing.T) {
	lines := []string{".*", "*.o", "*.o.*", "*.asn1.[ch]", "cscope.*", "cscope.*.out", "Module.symvers", "*~",
		`\#*#`, "*.c.[012]*.*", "a?c", "**/gen/**", "docs/*.md", "x*y*z", "*.{ts,tsx}", "*.a", "gen/**/*.go", "**/*.py"}
	rels := []string{".git", "a/.hidden", "x.o", "dir/x.o.cmd", "x.asn1.c", "x.asn1.h", "x.asn1.d", "cscope.out", "cscope.in.out",
		"cscope.", "Module.symvers", "a/Module.symvers", "f~", "#x#", "f.c.0abc.x", "abc", "a/abc", "gen/x.go", "p/gen/q/x.go",
		"docs/a.md", "docs/s/a.md", "xayaz", "q.ts", "q.tsx", "lib.a", "a.py", "deep/er/b.py", "cscope.o", "o"}
	for _, line := range lines {
		var g Gitignore
		if !g.addLine(line) {
			t.Fatalf("line %q refused", line)
		}
		ig := g.globs[0]
		whole := line
		if !strings.Contains(line, "/") {
			whole = "**/" + line
		}
		if strings.HasSuffix(whole, "/**") {
			whole += "/*"
		}
		for _, rel := range rels {
			name := rel[strings.LastIndexByte(rel, '/')+1:]
			want := doublestarMatch(whole, rel)
			if got := ig.match(rel, name); got != want {
				t.Errorf("line %q (kind %d) on %q: %v, doublestar says %v", line, ig.kind, rel, got, want)
			}
		}
	}
}

func doublestarMatch(p, rel string) bool {
	ok, _ := doublestar.Match(p, rel)
	return ok
}

// TestGitignoreIndexFindsTheLastMatchingLine: the index by name and
// extension gives the verdict a line-by-line scan from the last line
// gives, whitelists and directory-only lines included.
func TestGitignoreIndexFindsTheLastMatchingLine(t *testing.T) {
	text := ".*\n*.o\n!keep.o\nbuild/\n*.o.*\n!.gitignore\nModule.symvers\n*.a\n!lib.a\ncscope.*\n*.asn1.[ch]\n/top\ndocs/*.md\n!*.md\nbuild\n*~\n"
	g := ParseGitignore([]byte(text))
	rels := []string{".git", "x/.gitignore", "keep.o", "a/x.o", "x.o.cmd", "build", "lib.a", "z.a", "cscope.out", "x.asn1.c",
		"top", "a/top", "docs/a.md", "r.md", "f~", "Module.symvers", "plain", ".o"}
	for _, rel := range rels {
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		for _, isDir := range []bool{false, true} {
			want := MatchNone
			for i := len(g.globs) - 1; i >= 0; i-- {
				ig := &g.globs[i]
				if (!ig.dirOnly || isDir) && ig.match(rel, name) {
					want = MatchIgnore
					if ig.whitelist {
						want = MatchWhitelist
					}
					break
				}
			}
			if got := g.Match(rel, name, isDir); got != want {
				t.Errorf("Match(%q, dir=%v) = %v, the scan says %v", rel, isDir, got, want)
			}
		}
	}
}
