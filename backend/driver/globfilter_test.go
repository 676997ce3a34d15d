package driver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/internal/test/rgtest"
)

func TestNameGlobsAndDepth(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		names   []string
		depth   int
	}{
		{"**/*.c", []string{"*.c"}, 0},
		{"*.go", []string{"*.go"}, 1},
		{"src/**/*.{ts,tsx}", []string{"*.ts", "*.tsx"}, 0},
		{"{a,b}/x?.{c,h}", []string{"x*.c", "x*.h"}, 2},
		{"**/.env", []string{".env"}, 0},
		{"**/*", nil, 0},
		{"sub/**", nil, 0},
		{"*", nil, 1},
		{"a/*/b/??", nil, 4},
		{"**/[ab].c", nil, 0},
		{`**/\*.c`, nil, 0},
		{"**/a:b.c", nil, 0},
		{"{x/a,b}.c", nil, 0},
		{"**/{a,{b,c}}.c", nil, 0},
		{"**/a{,b}.c", []string{"a.c", "ab.c"}, 0},
		{"**/{,a}", nil, 0},
		{"{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}", nil, 1}, // 64 names: too many
	} {
		if got := nameGlobs(tc.pattern); !slices.Equal(got, tc.names) {
			t.Errorf("nameGlobs(%q) = %q, want %q", tc.pattern, got, tc.names)
		}
		if got := backend.GlobDepth(tc.pattern); got != tc.depth {
			t.Errorf("GlobDepth(%q) = %d, want %d", tc.pattern, got, tc.depth)
		}
	}
}

// TestGlobNarrowingKeepsAnswer: rg's listing narrowed by the pattern
// gives the same files as the whole listing matched afterwards, ignore
// rules included (a --glob would list an ignored file; a type does not).
func TestGlobNarrowingKeepsAnswer(t *testing.T) {
	rgtest.ForEach(t, func(t *testing.T, bin rgtest.Bin) {
		rg, err := NewRG(bin.Path)
		if err != nil {
			t.Fatal(err)
		}
		root := t.TempDir()
		for _, f := range []string{
			".git/HEAD", ".gitignore", "a.c", "b.h", "é.c", "ab.c", "x/a.c", "x/y/b.c", "x/y/z/c.tsx",
			"ign/a.c", "dir.c/in.txt", "dir.c/in.c", "src/m.ts", "src/n/o.tsx", ".env", "x/.env", "skip.c",
		} {
			p := filepath.Join(root, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("ign/\nskip.c\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, pat := range []string{
			"**/*.c", "*.c", "?.c", "**/?.c", "x/*/*.c", "src/**/*.{ts,tsx}", "**/.env", "**/a{,b}.c", "*/*.c", "**/*",
		} {
			var narrowed []string
			err := rg.Glob(context.Background(), backend.GlobQuery{Pattern: pat, Paths: []string{root}}, func(f backend.File) error {
				narrowed = append(narrowed, strings.TrimPrefix(f.Path, root+"/"))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(narrowed)
			var want []string
			everything := backend.GlobQuery{Pattern: "**", Paths: []string{root}}
			match := backend.GlobMatcher(pat)
			err = rg.Glob(context.Background(), everything, func(f backend.File) error {
				if rel := strings.TrimPrefix(f.Path, root+"/"); match(rel) {
					want = append(want, rel)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(want)
			if !slices.Equal(narrowed, want) {
				t.Errorf("%q: narrowed listing %q, whole listing matched %q", pat, narrowed, want)
			}
			if len(want) == 0 {
				t.Errorf("%q: the fixture should hold a match", pat)
			}
		}
	})
}
