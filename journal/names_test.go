package journal

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestNamesKeptByteForByte: a name that is not UTF-8 (or begins with the
// log's mark) comes back from the log as the same bytes, in an op, a
// final and a tree's listing; a UTF-8 name is written as it is.
func TestNamesKeptByteForByte(t *testing.T) {
	bad := "d\n\xff/f\xfe"
	r := &record{T: "o", ID: "x", Op: &Op{Kind: "rename", Path: bad, To: "ok/" + bad, Before: Image{Type: Link, Target: "\xc3", Xattrs: map[string][]byte{"user.\xff": []byte("v")}}}}
	b, err := marshalRecord(nil, wireRecord(r))
	if err != nil {
		t.Fatal(err)
	}
	var got record
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	readRecord(&got)
	if !reflect.DeepEqual(got.Op, r.Op) {
		t.Fatalf("op %+v came back as %+v", r.Op, got.Op)
	}
	a := &record{T: "a", ID: "x", After: []Final{{Path: rawMark + "p"}, {Path: "plain é"}}}
	b, _ = marshalRecord(nil, wireRecord(a))
	got = record{}
	json.Unmarshal(b, &got)
	readRecord(&got)
	if !reflect.DeepEqual(got.After, a.After) {
		t.Fatalf("finals %+v came back as %+v (%s)", a.After, got.After, b)
	}
	if want := `"p":"plain é"`; !json.Valid(b) || !strings.Contains(string(b), want) {
		t.Fatalf("a UTF-8 name is not written as it is: %s", b)
	}
	list := []treeEntry{{Path: bad, Image: Image{Type: Link, Target: bad}}}
	wireTree(list)
	b, _ = json.Marshal(list)
	var back []treeEntry
	json.Unmarshal(b, &back)
	readTreeNames(back)
	if back[0].Path != bad || back[0].Image.Target != bad {
		t.Fatalf("a tree's listing gave back %q -> %q", back[0].Path, back[0].Image.Target)
	}
}
