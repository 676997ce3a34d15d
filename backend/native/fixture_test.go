package native

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend/driver"
	"github.com/fsmcp/fsmcp/internal/test/rgtest"
)

// writeTree creates files under dir from a map of relative path -> content.
// A content starting with "->" makes a symlink to the rest.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fixture builds the parity tree and returns the repository root. The
// layout: wrap/.gitignore and wrap/.ignore above a repo with a .git dir
// (the first must not apply, the second must), nested ignore files with
// negation, anchored and directory-only rules, hidden files, binary files,
// symlinks out of the tree, odd names, one file per common type, a nested
// repository, and beside the repo a tree without .git (nogit) and an
// unpacked-tarball-like tree whose .gitignore says "/*" (tarball).
func fixture(t testing.TB) string {
	t.Helper()
	wrap := t.TempDir()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "foo outside the tree\n"})
	late := "foo in the first chunk\n" + strings.Repeat("filler line without the word\n", 4000) + "foo before nul\n" +
		strings.Repeat("x", 100) + "\x00" + "\nfoo after nul\n"
	ctxLines := []string{}
	for i := 1; i <= 30; i++ {
		switch i {
		case 5, 7, 15, 16, 28:
			ctxLines = append(ctxLines, "ctx match foo here")
		default:
			ctxLines = append(ctxLines, "ctx plain line")
		}
	}
	writeTree(t, wrap, map[string]string{
		".gitignore":                     "*.parentgit\n",
		".ignore":                        "*.parentdot\n",
		"repo/.git/HEAD":                 "ref: refs/heads/main foo\n",
		"repo/.git/config":               "[core] foo\n",
		"repo/a.parentgit":               "foo: above .git, so the parent .gitignore does not apply\n",
		"repo/a.parentdot":               "foo: the parent .ignore is above the root and the repository, so it is not read\n",
		"repo/.gitignore":                "# comment\n*.log\n!keep.log\nbuild/\n/top_only.txt\nsub/anch.txt\nlogs/\n\\#hash.txt\ntrailing.txt   \n",
		"repo/.ignore":                   "ignored_by_dot_ignore.txt\n!rg_reincluded.txt\n",
		"repo/.rgignore":                 "rgignored.md\nrg_reincluded.txt\n",
		"repo/main.go":                   "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"foo\") // Foo FOO\n}\n\nfunc helper(x int) int { return x * 2 }\n",
		"repo/keep.log":                  "foo keep\n",
		"repo/drop.log":                  "foo drop\n",
		"repo/top_only.txt":              "foo top\n",
		"repo/#hash.txt":                 "foo hash\n",
		"repo/trailing.txt":              "foo trailing\n",
		"repo/build/out.txt":             "foo build\n",
		"repo/logs/a.txt":                "foo logs dir\n",
		"repo/sub/logs":                  "foo logs is a file here\n",
		"repo/sub/top_only.txt":          "foo not anchored here\n",
		"repo/sub/anch.txt":              "foo anchored ignore\n",
		"repo/sub/.gitignore":            "!drop2.log\n*.tmp\n",
		"repo/sub/drop2.log":             "foo re-included by negation\n",
		"repo/sub/x.tmp":                 "foo tmp\n",
		"repo/sub/deeper/x.tmp":          "foo deeper tmp\n",
		"repo/sub/deeper/y.txt":          "foo deeper txt\nbar\n",
		"repo/ignored_by_dot_ignore.txt": "foo dot ignore\n",
		"repo/rgignored.md":              "foo rgignore\n",
		"repo/rg_reincluded.txt":         "foo rgignore beats .ignore\n",
		"repo/.hidden/h.txt":             "foo hidden dir\n",
		"repo/.env":                      "FOO=foo\n",
		"repo/bin.dat":                   "foo\x00binary\n",
		"repo/late_nul.txt":              late,
		"repo/link_out":                  "->" + outside,
		"repo/link_file":                 "->" + filepath.Join(outside, "secret.txt"),
		"repo/space name.txt":            "foo with space\n",
		"repo/ünïcödé.md":                "foo café naïve Straße ΣΊΣΥΦΟΣ\nstraße STRASSE\n",
		"repo/new\nline.txt":             "foo newline name\n",
		"repo/multi.txt":                 "start\nfoo\nbar\nend\nfoo\nbaz\n",
		"repo/ctx.txt":                   strings.Join(ctxLines, "\n") + "\n",
		"repo/latin1.txt":                "caf\xe9 start x\xe9y end\nplain xzy\n",
		"repo/fffd.txt":                  "start \uFFFD end x\uFFFDy\n",
		"repo/crlf.txt":                  "foo\r\nbar\r\n",
		"repo/noeol.txt":                 "first\nlast foo",
		"repo/empty.txt":                 "",
		"repo/words.txt":                 "foobar foo_bar foo-bar foo.bar\nunfoo\n123 4567 x9\n\ttab\n",
		"repo/types/a.py":                "def foo(): pass\n",
		"repo/types/b.rs":                "fn foo() {}\n",
		"repo/types/c.js":                "function foo() {}\n",
		"repo/types/d.ts":                "let foo: number = 1\n",
		"repo/types/Makefile":            "foo:\n\techo foo\n",
		"repo/types/Dockerfile":          "RUN foo\n",
		"repo/types/e.yaml":              "foo: 1\n",
		"repo/types/f.json":              "{\"foo\": 1}\n",
		"repo/types/g.c":                 "int foo;\n",
		"repo/types/h.cpp":               "int foo;\n",
		"repo/types/i.h":                 "int foo;\n",
		"repo/types/k.toml":              "foo = 1\n",
		"repo/types/l.vue":               "<template>foo</template>\n",
		"repo/types/m.svelte":            "<p>foo</p>\n",
		"repo/types/n.sh":                "echo foo\n",
		"repo/types/.bashrc":             "alias foo=bar\n",
		"repo/types/o.java":              "class Foo {}\n",
		"repo/types/p.mts":               "export const foo = 1\n",
		"repo/types/q.pyi":               "def foo() -> int: ...\n",
		"repo/types/gradle-wrapper.":     "foo: a name ending in a dot has no type for ripgrep\n",
		"repo/deep/nested/dir/file.go":   "package dir // foo deep\n",
		"repo/nested/.git":               "gitdir: ../.git/modules/nested\n",
		"repo/nested/n.log":              "foo: a .git file makes a nested repository; the outer *.log stops here\n",
		"repo/nested/.gitignore":         "*.tmp\n",
		"repo/nested/n.tmp":              "foo nested tmp\n",
		"nogit/.gitignore":               "not_skipped.txt\n",
		"nogit/.ignore":                  "skipped.txt\n",
		"nogit/not_skipped.txt":          "foo: no .git, so .gitignore does not count\n",
		"nogit/skipped.txt":              "foo: .ignore counts without .git\n",
		"nogit/kept.txt":                 "foo kept without .git\n",
		"tarball/.gitignore":             "/*\n!/keep/\n",
		"tarball/top.c":                  "int foo;\n",
		"tarball/src/a.c":                "int foo;\n",
		"tarball/keep/b.c":               "int foo;\n",
	})
	return filepath.Join(wrap, "repo")
}

// forEachRG runs fn with the rg backend of each ripgrep under test (the
// rg on PATH, and FSMCP_TEST_RG2), or skips loudly when there is none.
func forEachRG(t *testing.T, fn func(t *testing.T, rg *driver.RG)) {
	rgtest.ForEach(t, func(t *testing.T, bin rgtest.Bin) {
		rg, err := driver.NewRG(bin.Path)
		if err != nil {
			t.Fatal(err)
		}
		fn(t, rg)
	})
}
