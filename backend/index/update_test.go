package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend/native"
)

// listNames is root's file list as a build takes it.
func listNames(t *testing.T, root string) []string {
	t.Helper()
	files, err := listFileInfo(context.Background(), native.New(), root, func() {})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.rel)
	}
	return names
}

// postingsByFile is, per file name, its flags, metadata and each chunk's
// (trigram, mask) pairs as ix posts them.
func postingsByFile(ix *Index) map[string]string {
	per := map[uint32][]uint64{}
	le := binary.LittleEndian
	for i := range ix.ntrig {
		t := le.Uint32(ix.trigrams[i*trigRecSize:])
		ix.postings(t, func(id uint32, m uint8) bool {
			per[id] = append(per[id], uint64(t)<<8|uint64(m))
			return true
		})
	}
	out := map[string]string{}
	for i := range ix.nfiles {
		m, indexed := ix.fileMeta(i)
		s := fmt.Sprintf("indexed=%v text=%v %+v chunks=%d", indexed, ix.text(i), m, ix.chunks(i))
		for c := ix.content(i); c < ix.content(i)+ix.chunks(i); c++ {
			s += fmt.Sprintf(" %x", per[uint32(c)])
		}
		out[string(ix.nameBytes(i))] = s
	}
	return out
}

// TestUpdateReadsOnlyWhatChanged: an update from the old index reads the
// files whose metadata moved (times set back to themselves, which moves
// the change time only; an edit; a new file) and no other, finds those
// whose content it held by their hash (nothing new posted for them),
// drops the deleted ones, and posts for every file exactly what a build
// from scratch posts: chunked files, identical contents and files the
// old index shared a content between included.
func TestUpdateReadsOnlyWhatChanged(t *testing.T) {
	root := gitRoot(t)
	files := maps.Clone(fixtureFiles)
	for i := range 200 {
		files[fmt.Sprintf("gen/%03d.txt", i)] = fmt.Sprintf("file %d PM_%d_RESUME\n", i, i%7)
	}
	files["big.txt"] = strings.Repeat("a line of a big file, ERR_SYS now and then\n", 2000) // chunked
	files["dup1.txt"] = "identical PM_RESUME\n"
	files["dup2.txt"] = "identical PM_RESUME\n"
	writeTree(t, root, files)
	settled()
	ctx := context.Background()
	b := &builder{root: root, dir: t.TempDir(), yield: func() {}, workers: 2, settle: testSettle}
	first := filepath.Join(b.dir, "first.bin")
	if _, err := b.build(ctx, listNames(t, root), first); err != nil {
		t.Fatal(err)
	}
	old, err := openIndex(first, root)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()

	for _, rel := range []string{"gen/000.txt", "gen/001.txt", "gen/002.txt", "dup1.txt", "big.txt"} {
		p := filepath.Join(root, rel)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil { // the change time moves
			t.Fatal(err)
		}
	}
	writeTree(t, root, map[string]string{"gen/050.txt": "edited PM_RESUME\n", "new/one.txt": "PM_RESUME new\n"})
	for _, rel := range []string{"gen/199.txt", "dup2.txt"} {
		if err := os.Remove(filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	settled()
	names := listNames(t, root)
	updated := filepath.Join(b.dir, "updated.bin")
	st, err := b.update(ctx, old, names, updated)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(names) - 8; st.Reused != want {
		t.Errorf("%d files kept unread, want %d (all but the 5 touched, the edited, the new and latin1.txt, which no index holds)", st.Reused, want)
	}
	if st.Known != 5 {
		t.Errorf("%d files read again found in the old index by their content, want the 5 touched", st.Known)
	}
	fresh := filepath.Join(b.dir, "fresh.bin")
	if _, err := b.build(ctx, names, fresh); err != nil {
		t.Fatal(err)
	}
	got, err := openIndex(updated, root)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	want, err := openIndex(fresh, root)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	g, w := postingsByFile(got), postingsByFile(want)
	for _, name := range slices.Sorted(maps.Keys(w)) {
		if g[name] != w[name] {
			t.Errorf("%s:\nupdated %s\nfresh   %s", name, g[name], w[name])
		}
	}
	if len(g) != len(w) {
		t.Errorf("%d files in the updated index, %d in the fresh one", len(g), len(w))
	}

	// Times touched and a file added, nothing removed: every old content
	// keeps its id, and the old lists are copied whole.
	for _, rel := range []string{"gen/010.txt", "big.txt"} {
		p := filepath.Join(root, rel)
		fi, _ := os.Stat(p)
		os.Chtimes(p, fi.ModTime(), fi.ModTime())
	}
	writeTree(t, root, map[string]string{"new/two.txt": "PM_RESUME two\n"})
	settled()
	names = listNames(t, root)
	again := filepath.Join(b.dir, "again.bin")
	if st, err = b.update(ctx, got, names, again); err != nil {
		t.Fatal(err)
	}
	if st.Known != 2 || st.Reused != len(names)-4 {
		t.Errorf("the second update: %d kept, %d found by content; want %d and 2", st.Reused, st.Known, len(names)-4)
	}
	if _, err := b.build(ctx, names, fresh); err != nil {
		t.Fatal(err)
	}
	got2, err := openIndex(again, root)
	if err != nil {
		t.Fatal(err)
	}
	defer got2.Close()
	want2, err := openIndex(fresh, root)
	if err != nil {
		t.Fatal(err)
	}
	defer want2.Close()
	g, w = postingsByFile(got2), postingsByFile(want2)
	for _, name := range slices.Sorted(maps.Keys(w)) {
		if g[name] != w[name] {
			t.Errorf("second update, %s:\nupdated %s\nfresh   %s", name, g[name], w[name])
		}
	}
}
