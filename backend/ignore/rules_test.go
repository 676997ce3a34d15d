package ignore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGitignoreMatch(t *testing.T) {
	g := ParseGitignore([]byte(strings.Join([]string{
		"# comment",
		"*.log",
		"!keep.log",
		"build/",
		"/top.txt",
		"docs/*.md",
		"**/gen/**",
		"a/**/z.txt",
		`\#hash`,
		`\!bang`,
		"trailing.txt   ",
		"[Tt]emp*",
		"",
	}, "\n")))
	cases := []struct {
		rel   string
		isDir bool
		want  MatchKind
	}{
		{"x.log", false, MatchIgnore},
		{"deep/dir/x.log", false, MatchIgnore},
		{"keep.log", false, MatchWhitelist},
		{"sub/keep.log", false, MatchWhitelist},
		{"build", true, MatchIgnore},
		{"build", false, MatchNone}, // dir-only
		{"src/build", true, MatchIgnore},
		{"top.txt", false, MatchIgnore},
		{"sub/top.txt", false, MatchNone}, // anchored
		{"docs/a.md", false, MatchIgnore},
		{"docs/sub/a.md", false, MatchNone}, // * does not cross /
		{"x/docs/a.md", false, MatchNone},   // a slash anchors the pattern
		{"gen/x.go", false, MatchIgnore},
		{"p/gen/q/x.go", false, MatchIgnore},
		{"gen", true, MatchNone}, // "/**" matches inside, not the dir itself
		{"a/z.txt", false, MatchIgnore},
		{"a/b/c/z.txt", false, MatchIgnore},
		{"#hash", false, MatchIgnore},
		{"!bang", false, MatchIgnore},
		{"trailing.txt", false, MatchIgnore},
		{"Temp1", false, MatchIgnore},
		{"temp", true, MatchIgnore},
		{"other.txt", false, MatchNone},
		{"comment", false, MatchNone},
	}
	for _, c := range cases {
		name := c.rel[strings.LastIndexByte(c.rel, '/')+1:]
		if got := g.Match(c.rel, name, c.isDir); got != c.want {
			t.Errorf("Match(%q, dir=%v) = %v, want %v", c.rel, c.isDir, got, c.want)
		}
	}
}

// TestIgnorePrecedence: .rgignore over .ignore over .gitignore, deeper
// over shallower, and .gitignore above the nearest .git not consulted.
func TestIgnorePrecedence(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "above.txt\n")
	write(".ignore", "dotabove.txt\n")
	write("repo/.git/HEAD", "")
	write("repo/.gitignore", "a.txt\nb.txt\nc.txt\n")
	write("repo/.ignore", "!b.txt\nd.txt\n")
	write("repo/.rgignore", "!c.txt\n!d.txt\n")
	write("repo/sub/.gitignore", "!a.txt\n")

	repo := filepath.Join(root, "repo")
	ig := ParentIgnores(repo, root).ChildProbe(repo)
	sub := ig.ChildProbe(filepath.Join(repo, "sub"))
	cases := []struct {
		dir  *IgnoreDir
		path string
		want MatchKind
	}{
		{ig, "repo/a.txt", MatchIgnore},
		{ig, "repo/b.txt", MatchWhitelist}, // .ignore beats .gitignore
		{ig, "repo/c.txt", MatchWhitelist}, // .rgignore beats both
		{ig, "repo/d.txt", MatchWhitelist},
		{sub, "repo/sub/a.txt", MatchWhitelist},                                    // deeper wins
		{ig, "repo/above.txt", MatchNone},                                          // parent .gitignore is above .git
		{ig, "repo/dotabove.txt", MatchIgnore},                                     // parent .ignore inside the root applies
		{ParentIgnores(repo, "").ChildProbe(repo), "repo/dotabove.txt", MatchNone}, // above root and repository: not read
	}
	for _, c := range cases {
		p := filepath.Join(root, c.path)
		if got := c.dir.Match(p, filepath.Base(p), false); got != c.want {
			t.Errorf("Match(%s) = %v, want %v", c.path, got, c.want)
		}
	}
}

func TestFilter(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644)
	os.Mkdir(filepath.Join(root, ".git"), 0o755) // .gitignore counts in a repository
	ig := ParentIgnores(root, "").ChildProbe(root)
	skip := func(f *Filter, rel string, isDir bool) bool {
		return f.Skip(ig, root, root+"/"+rel, filepath.Base(rel), isDir)
	}
	f, err := NewFilter([]string{"*.go", "!vendor/**"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{
		"a.go": false, "x/b.go": false, "vendor/c.go": true, "a.txt": true, ".git": true,
	} {
		if got := skip(f, rel, rel == ".git"); got != want {
			t.Errorf("globs: Skip(%s) = %v, want %v", rel, got, want)
		}
	}
	// A whitelist glob overrides the ignore file, as with rg --glob.
	f, _ = NewFilter([]string{"*.log"}, nil, false)
	if skip(f, "x.log", false) {
		t.Error("glob *.log should re-include an ignored x.log")
	}
	f, _ = NewFilter(nil, nil, false)
	if !skip(f, "x.log", false) {
		t.Error("x.log should be ignored")
	}
	f, _ = NewFilter(nil, nil, true)
	if skip(f, "x.log", false) || !skip(f, ".git", true) {
		t.Error("no_ignore should search x.log but still skip .git")
	}
	f, _ = NewFilter(nil, []string{"make", "c"}, false)
	for rel, want := range map[string]bool{"Makefile": false, "x.mk": false, "a.h": false, "a.H": false, "a.go": true, "dir": false} {
		if got := skip(f, rel, rel == "dir"); got != want {
			t.Errorf("types: Skip(%s) = %v, want %v", rel, got, want)
		}
	}
	if _, err := NewFilter(nil, []string{"nosuchtype"}, false); err == nil || !strings.Contains(err.Error(), "unrecognized file type: nosuchtype") {
		t.Errorf("unknown type error = %v", err)
	}
}

var requiredTypes = strings.Fields("go js ts py rust java c cpp cs rb php swift kotlin scala sh md json yaml toml xml html css sql proto make docker lua r dart elixir erlang haskell ocaml perl tex txt vue svelte zig nim")

func TestFileTypesTable(t *testing.T) {
	for _, name := range requiredTypes {
		if g, ok := TypeGlobs(name); !ok || len(g) == 0 {
			t.Errorf("type %s missing", name)
		}
	}
}
