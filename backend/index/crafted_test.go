package index

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
)

// TestCraftedIndexNeverTrusted: index files whose checksum holds but
// whose counts, offsets or records were written to mislead (a header
// claiming 2^32 contents, 2^40 postings, counts past the file, names
// outside the names, a content id past the contents, two contents
// overlapping, trigrams out of order) are refused as damaged before
// anything is allocated from them; any other change either is refused or
// opens into an index whose check and searches neither crash nor
// allocate past the file's size.
func TestCraftedIndexNeverTrusted(t *testing.T) {
	root := gitRoot(t)
	writeTree(t, root, fixtureFiles)
	writeTree(t, root, map[string]string{"big/chunked.txt": strings.Repeat("a line of a chunked file\n", 3*backend.ChunkSize/25)})
	settled()
	cache := t.TempDir()
	opts := Options{Mode: "on", Roots: []string{root}, CacheDir: cache, Settle: testSettle, MaxShare: 1}
	s1 := started(t, opts)
	s1.Close()
	file := cacheFile(s1.roots[0].dir)
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := parseIndex(append([]byte{}, good...), root)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	hdr := func(i int) int { return len(magic) + 8*i }
	filesAt := headerFixed + len(root)
	trigAt := filesAt + ix.nfiles*fileRecSize + len(ix.names) + len(ix.post)
	craft := func(f func(b []byte)) []byte {
		b := append([]byte{}, good...)
		f(b)
		le.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
		return b
	}
	refused := map[string][]byte{
		"2^32 contents":     craft(func(b []byte) { le.PutUint64(b[hdr(1):], 1<<32) }),
		"2^40 postings":     craft(func(b []byte) { le.PutUint64(b[hdr(4):], 1<<40) }),
		"files past size":   craft(func(b []byte) { le.PutUint64(b[hdr(0):], 1<<62) }),
		"names wrap around": craft(func(b []byte) { le.PutUint64(b[hdr(3):], ^uint64(0)) }),
		"a name outside":    craft(func(b []byte) { le.PutUint64(b[filesAt:], uint64(len(ix.names))) }),
		"a content past":    craft(func(b []byte) { le.PutUint32(b[filesAt+48:], uint32(ix.ncontent)) }),
		"chunks past":       craft(func(b []byte) { le.PutUint32(b[filesAt+52:], 1<<31) }),
		"contents overlap":  craft(func(b []byte) { le.PutUint32(b[filesAt+fileRecSize+48:], uint32(ix.content(0))) }),
		"trigrams reversed": craft(func(b []byte) { le.PutUint32(b[trigAt:], maxTrigram-1) }),
		"a posting past":    craft(func(b []byte) { le.PutUint64(b[trigAt+8:], 1<<50) }),
	}
	for name, b := range refused {
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		var bad errCorrupt
		if _, err := openIndex(file, root); !errors.As(err, &bad) {
			t.Errorf("%s: opened (or refused as another format): %v", name, err)
		}
	}
	// Random changes anywhere: refused, or harmless.
	r := rand.New(rand.NewPCG(3, 5))
	for range 300 {
		b := craft(func(b []byte) {
			for range 1 + r.IntN(4) {
				i := r.IntN(len(b) - 4)
				if r.IntN(2) == 0 && i+8 <= len(b)-4 {
					le.PutUint64(b[i:], r.Uint64()>>r.IntN(64))
				} else {
					b[i] = byte(r.Uint32())
				}
			}
		})
		ix, err := parseIndex(b, root)
		if err != nil {
			continue
		}
		ix.bases()
		exerciseCheck(ix)
		for _, q := range queries {
			if pq := plan(q); pq != nil {
				narrow([]*Index{ix}, []*pruneState{nil}, pq, 1, false, q.Multiline, nil)
			}
		}
	}
	// The searcher sets a damaged file aside and builds anew.
	if err := os.WriteFile(file, refused["2^32 contents"], 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := started(t, opts)
	defer s2.Close()
	if !s2.Ready() {
		t.Fatal("not indexed again after a crafted index")
	}
	if aside, err := os.ReadFile(file + ".bad"); err != nil || string(aside) != string(refused["2^32 contents"]) {
		t.Errorf("the crafted file was not set aside as index.bin.bad: %v", err)
	}
}
