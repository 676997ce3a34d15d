package files

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// officialRoot makes a root with the given files and returns a resolver.
func officialRoot(t *testing.T, files map[string]string) func(rel string) *sandbox.Path {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sb, errs := sandbox.New([]string{root})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	t.Cleanup(func() { sb.Close() })
	return func(rel string) *sandbox.Path {
		p, err := sb.Resolve(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func TestHeadTail(t *testing.T) {
	big := ""
	for i := 0; i < 3000; i++ {
		big += "line\n"
	}
	at := officialRoot(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "one\r\ntwo\r\nthree", "big.txt": big + "last\n"})
	cases := []struct {
		file string
		head bool
		n    int
		want string
	}{
		{"a.txt", true, 2, "one\ntwo"},
		{"a.txt", true, 9, "one\ntwo\nthree"},
		{"a.txt", true, 0, ""},
		{"a.txt", false, 2, "three\n"}, // the official server's N-1 lines plus the newline
		{"a.txt", false, 9, "one\ntwo\nthree\n"},
		{"b.txt", true, 1, "one\r"},
		{"b.txt", false, 2, "two\nthree"},
		{"big.txt", false, 3, "line\nlast\n"},
		{"big.txt", true, 1, "line"},
	}
	for _, c := range cases {
		f := Tail
		if c.head {
			f = Head
		}
		got, err := f(at(c.file), c.n, 0)
		if err != nil || got != c.want {
			t.Errorf("%s head=%v n=%d = %q, %v; want %q", c.file, c.head, c.n, got, err, c.want)
		}
	}
	if _, err := Tail(at("big.txt"), 2000, 100); fault.KindOf(err) != fault.TooLarge {
		t.Errorf("tail past the limit: %v", err)
	}
	if _, err := Head(at("big.txt"), 2000, 100); fault.KindOf(err) != fault.TooLarge {
		t.Errorf("head past the limit: %v", err)
	}
	if _, err := Head(at("."), 1, 0); fault.KindOf(err) != fault.IsDir {
		t.Errorf("head of a directory: %v", err)
	}
}

func TestApplyFlexEdits(t *testing.T) {
	cases := []struct {
		name, content string
		edits         []FlexEdit
		want          string
		err           bool
	}{
		{"first exact match only", "a x a", []FlexEdit{{"a", "b"}}, "b x a", false},
		{"literal dollar", "price", []FlexEdit{{"price", "$& $1"}}, "$& $1", false},
		{"sequential", "one two", []FlexEdit{{"one", "1"}, {"1 two", "done"}}, "done", false},
		// The official server's indentation rule: the first line takes the
		// matched line's indentation, later lines the first line's plus
		// their own over the old line's, lines without indentation as given.
		{"whitespace-flexible indentation", "func() {\n    if x {\n        y()\n    }\n}",
			[]FlexEdit{{"if x {\n    y()\n}", "if z {\n      w()\n}"}}, "func() {\n    if z {\n      w()\n}\n}", false},
		{"crlf matched as lf", "a\r\nb\r\n", []FlexEdit{{"a\nb", "c"}}, "c\n", false},
		{"no match", "abc", []FlexEdit{{"zzz", "y"}}, "", true},
	}
	for _, c := range cases {
		_, got, err := ApplyFlexEdits(c.content, c.edits)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
		if c.err && (fault.KindOf(err) != fault.NotFound || err.Error() != "Could not find exact match for edit:\nzzz") {
			t.Errorf("%s: error %v", c.name, err)
		}
	}
}

func TestFlexEditFile(t *testing.T) {
	at := officialRoot(t, map[string]string{"a.txt": "x\r\ny\r\n"})
	before, after, err := FlexEditFile(t.Context(), at("a.txt"), []FlexEdit{{"y", "z"}}, 0, true)
	if err != nil || before != "x\ny\n" || after != "x\nz\n" {
		t.Fatalf("dry run: %q %q %v", before, after, err)
	}
	if got, _ := os.ReadFile(at("a.txt").Abs); string(got) != "x\r\ny\r\n" {
		t.Fatalf("dry run wrote %q", got)
	}
	if _, _, err := FlexEditFile(t.Context(), at("a.txt"), []FlexEdit{{"y", "z"}}, 0, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(at("a.txt").Abs); string(got) != "x\r\nz\r\n" {
		t.Fatalf("edit wrote %q, want the CRLF endings kept", got)
	}
}

func TestDirTreeAndWalk(t *testing.T) {
	at := officialRoot(t, map[string]string{"a.txt": "", "d/b.txt": "", "d/e/c.go": "", "skip/x": ""})
	if err := os.Mkdir(filepath.Join(at(".").Abs, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	tree, err := DirTree(context.Background(), at("."), func(rel string) bool { return rel == "skip" }, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(tree)
	want := `[{"name":"a.txt","type":"file"},{"name":"d","type":"directory","children":[{"name":"b.txt","type":"file"},{"name":"e","type":"directory","children":[{"name":"c.go","type":"file"}]}]},{"name":"empty","type":"directory","children":[]}]`
	if string(got) != want {
		t.Errorf("tree = %s", got)
	}
	if _, err := DirTree(context.Background(), at("."), nil, 3); !errors.Is(err, ErrTooManyEntries) {
		t.Errorf("cap: %v", err)
	}
	if _, err := DirTree(context.Background(), at("a.txt"), nil, 0); fault.KindOf(err) != fault.NotDir {
		t.Errorf("tree of a file: %v", err)
	}
	var seen []string
	err = WalkNames(context.Background(), at("."), 0, func(rel string, isDir bool) bool {
		seen = append(seen, rel)
		return rel != "d"
	})
	if err != nil || len(seen) != 5 || seen[2] != "empty" {
		t.Errorf("walk saw %v, %v", seen, err)
	}
	sizes, err := ListSizes(at("d"))
	if err != nil || len(sizes) != 2 || sizes[0].Name != "b.txt" || !sizes[1].IsDir {
		t.Errorf("sizes %+v %v", sizes, err)
	}
}
