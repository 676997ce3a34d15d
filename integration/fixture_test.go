package integration

import (
	"os"
	"path/filepath"
	"testing"
)

// tree is the fixture every integration test works on:
//
//	base/
//	  root/                    the allowed directory
//	    .gitignore             "*.log", "build/", "!keep.log"
//	    .hidden/h.txt          hidden, searched
//	    .git/config            never searched
//	    a.txt, b.go, keep.log, drop.log
//	    build/out.txt          ignored directory
//	    sub/.gitignore         "secret*.txt", "!secret-ok.txt"
//	    sub/c.go, sub/secret1.txt, sub/secret-ok.txt
//	    sub/deeper/d.md
//	    ünï cødé/naïve file.txt   unicode and spaces
//	    bin.dat                binary (NUL bytes)
//	    crlf.txt               CRLF line endings, no final newline
//	    link-out -> ../outside/secret.txt
//	    dir-out -> ../outside
//	    dangling-out -> ../outside/created-by-attack.txt
//	    link-in -> a.txt
//	  root_evil/x.txt          prefix sibling of root
//	  outside/secret.txt       must never be reached
//	  rootlink -> root         a root given through a symlink
type tree struct {
	base, root, outside, evil, rootlink string
}

// needle is a word every searchable text file holds, so search tests can
// see which files a backend visited.
const needle = "needle"

func newTree(t *testing.T) *tree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := &tree{
		base:     base,
		root:     filepath.Join(base, "root"),
		outside:  filepath.Join(base, "outside"),
		evil:     filepath.Join(base, "root_evil"),
		rootlink: filepath.Join(base, "rootlink"),
	}
	files := map[string]string{
		"root/.gitignore":                "*.log\nbuild/\n!keep.log\n",
		"root/.hidden/h.txt":             "hidden " + needle + "\n",
		"root/.git/config":               "[core] " + needle + "\n",
		"root/a.txt":                     "alpha\n" + needle + " one\nbeta\n",
		"root/b.go":                      "package b\n\n// " + needle + " in go\nfunc B() {}\n",
		"root/keep.log":                  "kept log " + needle + "\n",
		"root/drop.log":                  "dropped log " + needle + "\n",
		"root/build/out.txt":             "build output " + needle + "\n",
		"root/sub/.gitignore":            "secret*.txt\n!secret-ok.txt\n",
		"root/sub/c.go":                  "package sub\n\nvar Needle = \"" + needle + "\"\n",
		"root/sub/secret1.txt":           "ignored " + needle + "\n",
		"root/sub/secret-ok.txt":         "negated " + needle + "\n",
		"root/sub/deeper/d.md":           "# Title\n\n" + needle + " deep\n",
		"root/ünï cødé/naïve file.txt":   "unicode " + needle + "\n",
		"root/crlf.txt":                  "one\r\ntwo " + needle + "\r\nthree",
		"root_evil/x.txt":                "evil " + needle + "\n",
		"outside/secret.txt":             "top secret " + needle + "\n",
		"outside/nested/more-secret.txt": "more secret " + needle + "\n",
	}
	for rel, content := range files {
		write(t, filepath.Join(base, rel), content)
	}
	write(t, filepath.Join(tr.root, "bin.dat"), "\x00\x01\x02"+needle+"\x00binary")
	symlink(t, filepath.Join(tr.outside, "secret.txt"), filepath.Join(tr.root, "link-out"))
	symlink(t, tr.outside, filepath.Join(tr.root, "dir-out"))
	symlink(t, filepath.Join(tr.outside, "created-by-attack.txt"), filepath.Join(tr.root, "dangling-out"))
	symlink(t, "a.txt", filepath.Join(tr.root, "link-in"))
	symlink(t, tr.root, tr.rootlink)
	return tr
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func (tr *tree) path(rel string) string { return filepath.Join(tr.root, rel) }

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertOutsideUntouched checks that no attack changed or created anything
// outside the root.
func (tr *tree) assertOutsideUntouched(t *testing.T) {
	t.Helper()
	if got := readFile(t, filepath.Join(tr.outside, "secret.txt")); got != "top secret "+needle+"\n" {
		t.Fatalf("outside/secret.txt changed: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(tr.outside, "created-by-attack.txt")); err == nil {
		t.Fatal("a write through the dangling link created a file outside the root")
	}
	if got := readFile(t, filepath.Join(tr.evil, "x.txt")); got != "evil "+needle+"\n" {
		t.Fatalf("root_evil/x.txt changed: %q", got)
	}
	entries, _ := os.ReadDir(tr.outside)
	if len(entries) != 2 {
		t.Fatalf("outside has %d entries, want 2 (secret.txt, nested)", len(entries))
	}
}
