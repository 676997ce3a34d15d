package backend

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"
)

// feed delivers lines per file from several goroutines in random order.
func feed(c *Collector, files map[string][]int) {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	rand.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fs := c.File(n)
			for _, l := range files[n] {
				fs.Line(l, []byte(fmt.Sprintf("%s line %d", n, l)), l%3 == 0)
			}
			fs.End(len(files[n]))
		}()
	}
	wg.Wait()
}

func TestCollectorOrderOffsetLimit(t *testing.T) {
	files := map[string][]int{}
	var all []string
	for i := range 50 {
		name := fmt.Sprintf("/t/f%02d", (i*37)%50)
		for l := 1; l <= i%7+1; l++ {
			files[name] = append(files[name], l*2)
		}
	}
	for n, ls := range files {
		for _, l := range ls {
			all = append(all, fmt.Sprintf("%s:%d", n, l))
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := strings.Split(all[i], ":"), strings.Split(all[j], ":")
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		var x, y int
		fmt.Sscan(a[1], &x)
		fmt.Sscan(b[1], &y)
		return x < y
	})
	for _, tc := range []struct{ offset, limit int }{{0, 0}, {0, 10}, {5, 10}, {len(all) - 3, 10}, {len(all) + 5, 10}, {17, 1}} {
		c := NewCollector(Content, tc.offset, tc.limit)
		feed(c, files)
		r, err := c.Result(nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Total != len(all) || r.Files != len(files) {
			t.Fatalf("total %d files %d, want %d %d", r.Total, r.Files, len(all), len(files))
		}
		want := all[min(tc.offset, len(all)):]
		if tc.limit > 0 && len(want) > tc.limit {
			want = want[:tc.limit]
		}
		var got []string
		for _, e := range r.Entries {
			got = append(got, fmt.Sprintf("%s:%d", e.Path, e.Line))
			if string(e.Text) != fmt.Sprintf("%s line %d", e.Path, e.Line) || e.Context != (e.Line%3 == 0) {
				t.Errorf("entry %s:%d has text %q context %v", e.Path, e.Line, e.Text, e.Context)
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("offset %d limit %d:\n got  %v\n want %v", tc.offset, tc.limit, got, want)
		}
		if tc.limit > 0 && len(c.h) > tc.offset+tc.limit {
			t.Errorf("kept %d entries, bound is %d", len(c.h), tc.offset+tc.limit)
		}
		if r.Truncated() != (tc.offset+len(r.Entries) < len(all)) {
			t.Errorf("Truncated() = %v", r.Truncated())
		}
	}
}

func TestCollectorCountAndFiles(t *testing.T) {
	files := map[string][]int{"/b": {1, 2, 3}, "/a": {5}, "/c": {1, 9}}
	c := NewCollector(Count, 1, 1)
	feed(c, files)
	r, _ := c.Result(nil)
	if r.Total != 3 || len(r.Entries) != 1 || r.Entries[0].Path != "/b" || r.Entries[0].Count != 3 {
		t.Errorf("count page = %+v", r)
	}
	if got := Format(r, FormatOptions{}); got != "/b:3" {
		t.Errorf("Format = %q", got)
	}
	c = NewCollector(FilesWithMatches, 0, 0)
	feed(c, files)
	r, _ = c.Result(context.DeadlineExceeded)
	if !r.Partial || Format(r, FormatOptions{}) != "/a\n/b\n/c" {
		t.Errorf("files = %q partial=%v", Format(r, FormatOptions{}), r.Partial)
	}
	if _, err := NewCollector(Count, 0, 0).Result(fmt.Errorf("boom")); err == nil {
		t.Error("a non-context error must be returned")
	}
}

func TestFormatContent(t *testing.T) {
	r := &Result{Mode: Content, Total: 5, Entries: []Entry{
		{Path: "/a", Line: 1, Text: []byte("one")},
		{Path: "/a", Line: 2, Text: []byte("two"), Context: true},
		{Path: "/a", Line: 9, Text: []byte("nine")},
		{Path: "/b", Line: 3, Text: []byte("three")},
	}}
	want := "/a:1:one\n/a-2-two\n--\n/a:9:nine\n--\n/b:3:three"
	if got := Format(r, FormatOptions{LineNumbers: true, Separators: true}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := Format(r, FormatOptions{}); got != "/a:one\n/a-two\n/a:nine\n/b:three" {
		t.Errorf("without -n: %q", got)
	}
	if got := Format(&Result{Mode: Content}, FormatOptions{}); got != NoMatches {
		t.Errorf("empty: %q", got)
	}
}
