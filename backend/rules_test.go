package backend

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsmcp/fsmcp/internal/rgtest"
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

// TestFileTypesMatchRG: for every type of fsmcp's table, rg (given the
// table's entry by typeArgs) selects exactly the files the native filter
// selects, whatever rg's built-in table says; run with each rg of
// rgtest.Bins. The tree holds names made from every glob of the table and
// near misses of them.
func TestFileTypesMatchRG(t *testing.T) {
	dir := t.TempDir()
	var ents []os.DirEntry // the tree, made for the first rg
	rgtest.ForEach(t, func(t *testing.T, bin rgtest.Bin) {
		if ents == nil {
			ents = typeSampleTree(t, dir)
		}
		rg, err := NewRG(bin.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, typ := range FileTypes() {
			f, err := NewFilter(nil, []string{typ}, false)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, e := range ents {
				if !f.Skip(nil, dir, filepath.Join(dir, e.Name()), e.Name(), false) {
					want = append(want, filepath.Join(dir, e.Name()))
				}
			}
			q := GrepQuery{Pattern: "x", Types: []string{typ}, Paths: []string{dir}}
			r, err := Run(context.Background(), rg, q, 0, 0)
			if err != nil {
				t.Fatalf("type %s: %v", typ, err)
			}
			var got []string
			for _, e := range r.Entries {
				got = append(got, e.Path)
			}
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("type %s: rg selects %d files, native %d; rg only: %v; native only: %v",
					typ, len(got), len(want), minus(got, want), minus(want, got))
			}
		}
	})
}

// typeSampleTree fills dir with a file for each name made from the globs of
// the table (globSamples) and near misses of them, and lists it.
func typeSampleTree(t *testing.T, dir string) []os.DirEntry {
	names := map[string]bool{}
	for _, typ := range FileTypes() {
		globs, _ := TypeGlobs(typ)
		for _, g := range globs {
			for _, n := range globSamples(g) {
				names[n] = true
				names[strings.ToUpper(n)] = true
				names["a"+n] = true
				names[n+"~"] = true
			}
		}
	}
	for n := range names {
		if n == "" || n == "." || n == ".." {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

// minus returns the elements of a not in b, as base names.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, filepath.Base(x))
		}
	}
	return out
}

// globSamples returns base names that glob g matches: each "*" as "" and
// as "x", each [class] as each of its members (a range as its ends).
func globSamples(g string) []string {
	out := []string{""}
	for i := 0; i < len(g); i++ {
		var alts []string
		switch c := g[i]; c {
		case '*':
			alts = []string{"", "x"}
		case '[':
			j := strings.IndexByte(g[i+1:], ']') + i + 1
			class := g[i+1 : j]
			for k := 0; k < len(class); k++ {
				if k+2 < len(class) && class[k+1] == '-' {
					alts = append(alts, class[k:k+1], class[k+2:k+3])
					k += 2
					continue
				}
				alts = append(alts, class[k:k+1])
			}
			i = j
		default:
			alts = []string{string(c)}
		}
		var next []string
		for _, o := range out {
			for _, a := range alts {
				next = append(next, o+a)
			}
		}
		out = next
	}
	return out
}

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

// TestGlobMatcher: the fast paths agree with doublestar.
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
}
