package backend

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

func TestSearchableLen(t *testing.T) {
	text := []byte(strings.Repeat("abcdefghi\n", 20000)) // 200 KB
	if n := SearchableLen(text); n != len(text) {
		t.Errorf("text: %d, want %d", n, len(text))
	}
	early := append([]byte("foo\n\x00"), text...)
	if n := SearchableLen(early); n != 0 {
		t.Errorf("NUL in the first block: %d, want 0", n)
	}
	late := append(append([]byte{}, text...), 0)
	n := SearchableLen(late)
	// rg refills with the partial line kept, so chunk boundaries drift;
	// the cut is a line boundary before the chunk holding the NUL.
	if n == 0 || n >= len(text) || late[n-1] != '\n' || len(late)-n > 2*rgBufferSize {
		t.Errorf("late NUL: cut at %d of %d", n, len(late))
	}
}

// TestMultilineSearchableLen: under a multiline pattern that can match a
// newline, rg (13 and 14) skips a file with a NUL in its first 64 KiB and
// searches any other whole: the NUL at offset 65535 makes it binary, at
// 65536 it does not.
func TestMultilineSearchableLen(t *testing.T) {
	for _, c := range []struct{ at, want int }{{-1, 70000}, {3, 0}, {65535, 0}, {65536, 70000}, {69999, 70000}} {
		data := []byte(strings.Repeat("x", 70000))
		if c.at >= 0 {
			data[c.at] = 0
		}
		if n := MultilineSearchableLen(data); n != c.want {
			t.Errorf("NUL at %d: %d, want %d", c.at, n, c.want)
		}
	}
}

// TestGlobMatcher: the fast paths agree with doublestar, the matcher of
// every other pattern, over the shapes they take and many they must not
// (a slash, a class, braces, an escape in the last element), on names
// with dots, newlines, unicode and glob metacharacters of their own.
func TestGlobMatcher(t *testing.T) {
	paths := []string{"a.go", "x/a.go", "x/y/a.go", "a.go/b", "ago", "x/main", "main", "amain", "x/amain", "a.txt", ".go", "x/.go"}
	for _, pat := range []string{"**/*.go", "**/main", "*.go", "main", "x/*.go", "**/*", "x/**", "{a,x}/*.go"} {
		m := GlobMatcher(pat)
		for _, p := range paths {
			want, _ := doublestar.Match(pat, p)
			if got := m(p); got != want {
				t.Errorf("GlobMatcher(%q)(%q) = %v, doublestar says %v", pat, p, got, want)
			}
		}
	}
	elems := []string{"", "a", "c", ".c", "a.c", "b.c", "x.c.c", ".hidden", ".git", "Makefile", "makefile", "Makefile.c", "aMakefile",
		"new\nline.c", "new\nline", "é.c", "日本.c", "Kconfig", "a*.c", "[a].c", "{a}.c", "a?c", "\\.c", "c.C", "x y.c"}
	rng := rand.New(rand.NewPCG(1, 2))
	var names []string
	for range 3000 {
		parts := make([]string, 1+rng.IntN(4))
		for j := range parts {
			parts[j] = elems[rng.IntN(len(elems))]
		}
		names = append(names, strings.Join(parts, "/"))
	}
	pats := []string{"**/*.c", "**/*.C", "**/Makefile", "**/.hidden", "**/*", "**/*c", "**/a.c", "**/é.c", "**/日本.c", "**/new\nline.c",
		"*.c", "*c", "*.c.c", "Makefile", ".hidden", "a.c", "*", "**", "**/**/*.c", "**/*.{c,h}", "**/{Makefile,Kconfig}", "**/[ab].c",
		"**/[!a].c", "**/?.c", "**/a?c", "**/\\*.c", "**/a\\*.c", "**/*.c/**", "**/x/*.c", "x/**/*.c", "*/*.c", "**/*.[cC]", "**/.*",
		"**/*.c*", "**/Make*", "{a,b}.c", "**/x y.c", "**/*.", "**/.", "*.", "**/\\[a].c"}
	for _, pat := range pats {
		if !doublestar.ValidatePattern(pat) {
			t.Fatalf("%q is not a valid pattern", pat)
		}
		m := GlobMatcher(pat)
		for _, p := range names {
			if got, want := m(p), doublestar.MatchUnvalidated(pat, p); got != want {
				t.Errorf("GlobMatcher(%q)(%q) = %v, doublestar says %v", pat, p, got, want)
			}
		}
	}
}
