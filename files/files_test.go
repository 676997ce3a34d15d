package files

import (
	"strings"
	"testing"
)

func TestApplyEdits(t *testing.T) {
	cases := []struct {
		name, in string
		edits    []Edit
		want     string
		n        int
		err      string
	}{
		{"unique", "a b c", []Edit{{Old: "b", New: "B"}}, "a B c", 1, ""},
		{"not unique", "a b b", []Edit{{Old: "b", New: "B"}}, "", 0, "found 2 times"},
		{"replace all", "a b b", []Edit{{Old: "b", New: "B", ReplaceAll: true}}, "a B B", 2, ""},
		{"not found", "abc", []Edit{{Old: "x", New: "y"}}, "", 0, "old_string not found"},
		{"empty old", "abc", []Edit{{Old: "", New: "y"}}, "", 0, "must not be empty"},
		{"identical", "abc", []Edit{{Old: "b", New: "b"}}, "", 0, "identical"},
		{"literal dollar", "x = $1", []Edit{{Old: "$1", New: "$2$&"}}, "x = $2$&", 1, ""},
		{"sequential", "one", []Edit{{Old: "one", New: "two"}, {Old: "two", New: "three"}}, "three", 2, ""},
		{"batch all or nothing", "one two", []Edit{{Old: "one", New: "1"}, {Old: "zz", New: "y"}}, "", 0, "edit 2 of 2"},
		{"crlf kept", "a\r\nb\r\nc", []Edit{{Old: "a\nb", New: "x\ny\nz"}}, "x\r\ny\r\nz\r\nc", 1, ""},
		{"crlf insert line", "a\r\nb", []Edit{{Old: "a", New: "a\nnew"}}, "a\r\nnew\r\nb", 1, ""},
		{"no final newline kept", "a\nb", []Edit{{Old: "b", New: "c"}}, "a\nc", 1, ""},
		{"lf file untouched", "a\nb\n", []Edit{{Old: "a\nb", New: "c\nd"}}, "c\nd\n", 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, n, err := ApplyEdits(c.in, c.edits)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want || n != c.n {
				t.Fatalf("= %q, %d, %v; want %q, %d", got, n, err, c.want, c.n)
			}
		})
	}
}

func TestReadLines(t *testing.T) {
	in := "one\r\ntwo\n" + strings.Repeat("é", 2500) + "\nfour"
	l, err := ReadLines(strings.NewReader(in), 2, 2, 2000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if l.Total != 4 || l.First != 2 || len(l.Text) != 2 || l.Text[0] != "two" {
		t.Fatalf("got %+v", l)
	}
	if l.Text[1] != strings.Repeat("é", 2000)+TruncatedMark || l.LongLines != 1 {
		t.Fatalf("long line not cut by runes: %d bytes", len(l.Text[1]))
	}
	l, _ = ReadLines(strings.NewReader(in), 1, 10, 2000, 0)
	if l.Text[0] != "one" || l.Text[3] != "four" {
		t.Fatalf("CR not stripped or last line lost: %q", l.Text)
	}
	l, _ = ReadLines(strings.NewReader("a\nb\nc\n"), 1, 10, 2000, 4)
	if !l.Cut || len(l.Text) != 2 {
		t.Fatalf("char budget not applied: %+v", l)
	}
	l, _ = ReadLines(strings.NewReader(""), 1, 10, 2000, 0)
	if l.Total != 0 || len(l.Text) != 0 {
		t.Fatalf("empty: %+v", l)
	}
}

func TestClassify(t *testing.T) {
	if k := Classify([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 10).Kind; k != Image {
		t.Errorf("png = %v", k)
	}
	if k := Classify([]byte("ab\x00cd"), 5).Kind; k != Binary {
		t.Errorf("NUL = %v", k)
	}
	if k := Classify([]byte("<svg xmlns='http://www.w3.org/2000/svg'></svg>"), 5).Kind; k != Text {
		t.Errorf("svg = %v, want text", k)
	}
	if k := Classify([]byte("héllo"), 5).Kind; k != Text {
		t.Errorf("utf-8 = %v", k)
	}
}
