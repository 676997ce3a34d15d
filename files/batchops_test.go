package files

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// opsRoot is a root with a.txt, and a link out of it next to a secret.
func opsRoot(t *testing.T) (*sandbox.Sandbox, string, string) {
	t.Helper()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root, out := filepath.Join(base, "root"), filepath.Join(base, "out")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one two one\n"), 0o644)
	os.WriteFile(filepath.Join(out, "secret"), []byte("s\n"), 0o644)
	os.Symlink(filepath.Join(out, "secret"), filepath.Join(root, "link"))
	os.Symlink(filepath.Join(out, "new"), filepath.Join(root, "dangling"))
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	return sb, root, out
}

func resolve(t *testing.T, sb *sandbox.Sandbox, path string) *sandbox.Path {
	t.Helper()
	p, err := sb.Resolve(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestChmodChown(t *testing.T) {
	sb, root, out := opsRoot(t)
	a := resolve(t, sb, filepath.Join(root, "a.txt"))
	if err := Chmod(context.Background(), a, 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(root, "a.txt")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %o", fi.Mode().Perm())
	}
	if err := Chmod(context.Background(), a, 0o4755); fault.KindOf(err) != fault.Invalid {
		t.Errorf("setuid bit: %v", err)
	}
	if err := Chown(context.Background(), a, os.Getuid(), os.Getgid()); err != nil {
		t.Errorf("chown to oneself: %v", err)
	}
	for _, name := range []string{"link", "dangling"} {
		p := resolve(t, sb, filepath.Join(root, name))
		if err := Chmod(context.Background(), p, 0o777); err == nil {
			t.Errorf("chmod through %s succeeded", name)
		}
		if err := Chown(context.Background(), p, -1, -1); err == nil {
			t.Errorf("chown through %s succeeded", name)
		}
	}
	if fi, _ := os.Stat(filepath.Join(out, "secret")); fi.Mode().Perm() != 0o644 {
		t.Errorf("the secret's mode changed: %o", fi.Mode().Perm())
	}
	if err := Chmod(context.Background(), resolve(t, sb, filepath.Join(root, "missing")), 0o644); fault.KindOf(err) != fault.NotFound {
		t.Errorf("missing: %v", err)
	}
}

func TestAppend(t *testing.T) {
	sb, root, out := opsRoot(t)
	a := resolve(t, sb, filepath.Join(root, "a.txt"))
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() { defer wg.Done(); Append(t.Context(), a, []byte("x"), 0) }()
	}
	wg.Wait()
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(data) != "one two one\n"+strings.Repeat("x", 20) {
		t.Errorf("concurrent appends: %q", data)
	}
	if err := Append(t.Context(), resolve(t, sb, filepath.Join(root, "sub/new.txt")), []byte("n"), 0); err != nil {
		t.Fatal(err)
	}
	if err := Append(t.Context(), a, []byte("too much"), 30); fault.KindOf(err) != fault.TooLarge {
		t.Errorf("over the limit: %v", err)
	}
	if err := Append(t.Context(), resolve(t, sb, filepath.Join(root, "dangling")), []byte("x"), 0); err == nil {
		t.Error("append through a dangling link out succeeded")
	}
	if _, err := os.Stat(filepath.Join(out, "new")); err == nil {
		t.Error("the dangling link's target was created")
	}
}

func TestReplaceFile(t *testing.T) {
	sb, root, _ := opsRoot(t)
	a := resolve(t, sb, filepath.Join(root, "a.txt"))
	n, changed, err := ReplaceFile(t.Context(), a, []Replacement{
		{Pattern: regexp.MustCompile(`one`), With: func(w *Builder, _ string, _ []int) { w.WriteString("1") }},
		{Pattern: regexp.MustCompile(`(t)wo`), With: func(w *Builder, c string, m []int) { w.WriteString(strings.ToUpper(c[m[2]:m[3]])) }},
	}, 0)
	if err != nil || n != 3 || !changed {
		t.Fatalf("%d %v %v", n, changed, err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(data) != "1 T 1\n" {
		t.Errorf("content %q", data)
	}
	n, changed, err = ReplaceFile(t.Context(), a, []Replacement{{Pattern: regexp.MustCompile(`zzz`)}}, 0)
	if err != nil || n != 0 || changed {
		t.Errorf("no match: %d %v %v", n, changed, err)
	}
	if _, _, err := ReplaceFile(t.Context(), resolve(t, sb, filepath.Join(root, "link")), []Replacement{{Pattern: regexp.MustCompile(`s`)}}, 0); err == nil {
		t.Error("replace through a link out succeeded")
	}
}
