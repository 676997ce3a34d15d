package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/fsmcp/fsmcp/backend"
)

// The on-disk index of one root, little-endian, memory-mapped whole:
//
//	header   magic "fsmcpix8", then u64: files, contents, trigrams, names
//	         length, postings length, root length, chunk size
//	         (backend.ChunkSize: an index chunked otherwise is not used);
//	         the root's path
//	files    one fileRecSize record per file, sorted by name:
//	         name offset u64, name length u32, flags u32, size i64,
//	         mtime ns i64, ctime ns i64, inode u64, content id u32,
//	         chunks u32 (0 or 1: one)
//	names    the files' paths relative to the root, '/'-separated
//	postings per trigram, its content ids ascending, each a uvarint delta
//	         then one byte: the pairBits of the two bytes that follow
//	         the trigram in that content; trigram 0xffffff (which no
//	         valid UTF-8 holds) lists the contents with a byte ≥ 0x80
//	trigrams one trigRecSize record per trigram, ascending:
//	         trigram u32, content count u32, postings offset u64
//	         (after the postings, which the build writes as it merges)
//	hashes   per content id, the SHA-256 of the content it begins (zero
//	         for a later chunk's id and a content not indexed): an
//	         update finds a file read again, whose content the index
//	         already holds, by it, and posts nothing new for it
//	trailer  CRC-32C of all the above, u32
//
// A file whose checksum, sizes, counts or order do not hold is set aside
// (index.bin.bad, one log line) and the root indexed again, so a torn,
// damaged or crafted index can neither hide a match nor make its reader
// allocate past what the file's size allows.
//
// Postings name contents, not files: hard links to one inode (a tree
// copied with cp -al, a pnpm store) are read and indexed once. A content
// bigger than chunkSize is indexed as chunks ending at line ends, with
// consecutive ids from the file's content id; a search that is not
// multiline needs one chunk to hold every trigram it requires. A file
// whose flags lack flagIndexed is listed but its content is not in the
// postings; flagText says an indexed content holds no NUL byte (unreadable, not UTF-8, too big, or changed while it was
// read): it is always a candidate.

const (
	magic       = "fsmcpix8"
	headerFixed = len(magic) + 7*8
	fileRecSize = 56
	trigRecSize = 16
	hashSize    = 32 // sha256.Size
	flagIndexed = 1
	flagText    = 2 // the content holds no NUL byte
	maxTrigram  = 1 << 24
	// nonASCIIMarker is the trigram posted for each content (or chunk)
	// holding a byte ≥ 0x80. No valid UTF-8 holds 0xff, and only valid
	// UTF-8 is indexed, so it names no real trigram; a pattern every
	// match of which needs a non-ASCII rune (\p{Greek}, é) requires it.
	nonASCIIMarker = "\xff\xff\xff"
	maxNameBytes   = 1 << 31
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// nonASCIITrigram is nonASCIIMarker as the index keys it.
var nonASCIITrigram = trigramOf(nonASCIIMarker)

// meta is what a file's content is trusted by: any change to it (a write,
// a rename over it, a truncation) changes one of these.
type meta struct {
	size, mtime, ctime int64
	ino                uint64
}

// Index is one root's mapped index file.
type Index struct {
	root     string
	data     []byte
	unmap    func() error
	nfiles   int
	ncontent int
	ntrig    int
	files    []byte // file records
	names    []byte
	trigrams []byte // trigram records
	post     []byte // postings
	hashes   []byte // hashSize per content id

	basesOnce sync.Once
	base      []int32  // per id: the first id of its content
	chunked   []uint32 // the first ids of the contents of more than one chunk
}

// openIndex maps the index file at path, built for root; an index of
// another format or root is an error.
func openIndex(path, root string) (*Index, error) {
	if err := checkSum(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	ix, err := parseIndex(data, root)
	if err != nil {
		unmap()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ix.unmap = unmap
	return ix, nil
}

var errFormat = errors.New("not an index of this root in this format")

// checkSum checks the file's trailing CRC-32C, reading it rather than
// its mapping, so the pages it reads through are the page cache's and
// not the server's resident memory.
func checkSum(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a FIFO put there is not waited on
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errCorrupt("not a regular file")
	}
	if fi.Size() < int64(headerFixed+4) {
		return errCorrupt("shorter than a header")
	}
	sum := crc32.New(castagnoli)
	if _, err := io.Copy(sum, io.LimitReader(f, fi.Size()-4)); err != nil {
		return err
	}
	var want [4]byte
	if _, err := io.ReadFull(f, want[:]); err != nil {
		return err
	}
	if sum.Sum32() != binary.LittleEndian.Uint32(want[:]) {
		return errCorrupt("its checksum does not hold")
	}
	return nil
}

func parseIndex(data []byte, root string) (*Index, error) {
	if len(data) < headerFixed+4 || string(data[:len(magic)]) != magic {
		return nil, errFormat
	}
	data = data[:len(data)-4] // the checksum, checked by checkSum
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(data[len(magic)+8*i:]) }
	nfiles, ncontent, ntrig, nnames, npost, nroot := u(0), u(1), u(2), u(3), u(4), u(5)
	if u(6) != backend.ChunkSize {
		return nil, errFormat
	}
	// Every count and length is checked against the file's size before
	// it is multiplied, and before anything is allocated from it: a file
	// whose checksum holds may still have been written to crash its
	// reader (a header claiming 2^32 contents made the check allocate
	// 64 GiB at every start).
	size := uint64(len(data))
	for _, n := range []uint64{nfiles, ncontent, ntrig, nnames, npost, nroot} {
		if n > size {
			return nil, errCorrupt("a count past the file's size")
		}
	}
	off := uint64(headerFixed)
	need := off + nroot + nfiles*fileRecSize + nnames + ntrig*trigRecSize + npost + ncontent*hashSize
	if nfiles > 1<<32 || ntrig > maxTrigram || nnames > maxNameBytes || nroot > 1<<16 || need != size {
		return nil, errCorrupt("the sections do not add up to the file's size")
	}
	// A content is a file's (a distinct one per listed file at most), or
	// a chunk after a file's first, which holds at least chunkSize bytes
	// and so at least one trigram: a posting of two bytes or more.
	if ncontent > nfiles+npost/2 || ncontent > 1<<32 {
		return nil, errCorrupt("more contents than the file can hold")
	}
	if string(data[off:off+nroot]) != root {
		return nil, errFormat
	}
	off += nroot
	ix := &Index{root: root, data: data, nfiles: int(nfiles), ncontent: int(ncontent), ntrig: int(ntrig)}
	take := func(n uint64) []byte { b := data[off : off+n]; off += n; return b }
	ix.files = take(nfiles * fileRecSize)
	ix.names = take(nnames)
	ix.post = take(npost)
	ix.trigrams = take(ntrig * trigRecSize)
	ix.hashes = take(ncontent * hashSize)
	if err := ix.checkFiles(); err != nil {
		return nil, err
	}
	if err := ix.checkTrigrams(); err != nil {
		return nil, err
	}
	return ix, nil
}

// errCorrupt says why an index file of this format cannot be used: it is
// set aside, not read (see Searcher.prepare).
type errCorrupt string

func (e errCorrupt) Error() string { return "a damaged index: " + string(e) }

// checkFiles checks every file record against the sections: its name
// lies in the names (and names are in order, as lookups assume), and the
// files' content ids
// tile [0, ncontent): each id belongs to exactly one content, whose files
// all name the same chunks. What later walks by content (the check, the
// bases) then costs the contents once, not each file's claim.
func (ix *Index) checkFiles() error {
	span := make([]uint32, ix.ncontent) // per first id: its content's chunks
	var prev []byte
	for i := range ix.nfiles {
		o, n := ix.nameAt(i)
		if o > uint64(len(ix.names)) || n > uint64(len(ix.names))-o {
			return errCorrupt("a name outside the names")
		}
		name := ix.names[o : o+n]
		if i > 0 && string(prev) >= string(name) {
			return errCorrupt("names out of order")
		}
		prev = name
		cid, chunks := uint64(ix.content(i)), uint64(ix.chunks(i))
		if cid+chunks > uint64(ix.ncontent) {
			return errCorrupt("a file's content ids outside the contents")
		}
		switch span[cid] {
		case 0:
			span[cid] = uint32(chunks)
		case uint32(chunks):
		default:
			return errCorrupt("two files of one content disagree on its chunks")
		}
	}
	for id := 0; id < ix.ncontent; {
		n := int(span[id])
		if n == 0 {
			return errCorrupt("a content id no file names")
		}
		for k := 1; k < n; k++ {
			if span[id+k] != 0 {
				return errCorrupt("two contents share an id")
			}
		}
		id += n
	}
	return nil
}

// checkTrigrams checks that the trigrams ascend (lookups search them)
// and that their postings start in order inside the postings.
func (ix *Index) checkTrigrams() error {
	le := binary.LittleEndian
	var prevT uint32
	var prevOff uint64
	for i := range ix.ntrig {
		r := ix.trigrams[i*trigRecSize:]
		t, n, off := le.Uint32(r), le.Uint32(r[4:]), le.Uint64(r[8:])
		if i > 0 && t <= prevT || t >= maxTrigram || off < prevOff || off > uint64(len(ix.post)) || uint64(n) > (uint64(len(ix.post))-off)/2 {
			return errCorrupt("trigrams out of order, or their postings outside the postings")
		}
		prevT, prevOff = t, off
	}
	return nil
}

// Close unmaps the index.
func (ix *Index) Close() error {
	if ix == nil || ix.unmap == nil {
		return nil
	}
	return ix.unmap()
}

// Files is the number of files listed.
func (ix *Index) Files() int { return ix.nfiles }

// Size is the index file's size in bytes.
func (ix *Index) Size() int64 { return int64(len(ix.data)) }

func (ix *Index) rec(i int) []byte { return ix.files[i*fileRecSize : (i+1)*fileRecSize] }

func (ix *Index) nameAt(i int) (off, n uint64) {
	r := ix.rec(i)
	return binary.LittleEndian.Uint64(r), uint64(binary.LittleEndian.Uint32(r[8:]))
}

func (ix *Index) nameBytes(i int) []byte {
	o, n := ix.nameAt(i)
	return ix.names[o : o+n]
}

// nameView is file i's name as a string that shares the index's bytes
// instead of copying them: a listing of 1M names made 1M strings. It is
// valid while ix is mapped, which a search holding ix outlives only at
// Close, so nothing may keep it past the search that read it.
func (ix *Index) nameView(i int) string {
	b := ix.nameBytes(i)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// hash is the SHA-256 of the content that id begins; zero for a later
// chunk or a content not indexed.
func (ix *Index) hash(id int) (h [hashSize]byte) {
	copy(h[:], ix.hashes[id*hashSize:])
	return h
}

// content is file i's content id.
func (ix *Index) content(i int) int { return int(binary.LittleEndian.Uint32(ix.rec(i)[48:])) }

// chunks is how many ids from content(i) file i's content spans.
func (ix *Index) chunks(i int) int {
	return max(1, int(binary.LittleEndian.Uint32(ix.rec(i)[52:])))
}

// hit reports whether file i is among the contents set in bits: any of
// its chunks, or, for a multiline search (where a match may span chunks,
// and bits name whole contents by their first id), its content.
func (ix *Index) hit(i int, bits []uint64, multiline bool) bool {
	cid, n := ix.content(i), ix.chunks(i)
	if multiline {
		return has(bits, cid)
	}
	for c := cid; c < cid+n; c++ {
		if has(bits, c) {
			return true
		}
	}
	return false
}

// has reports whether bit i of the set bits is on.
func has(bits []uint64, i int) bool { return bits[i>>6]&(1<<(i&63)) != 0 }

// set turns bit i of bits on.
func set(bits []uint64, i int) { bits[i>>6] |= 1 << (i & 63) }

// text reports whether file i's content, as indexed, holds no NUL byte.
func (ix *Index) text(i int) bool {
	return binary.LittleEndian.Uint32(ix.rec(i)[12:])&flagText != 0
}

// fileMeta returns file i's recorded metadata, and whether its content is
// in the postings.
func (ix *Index) fileMeta(i int) (meta, bool) {
	r := ix.rec(i)
	le := binary.LittleEndian
	return meta{
		size:  int64(le.Uint64(r[16:])),
		mtime: int64(le.Uint64(r[24:])),
		ctime: int64(le.Uint64(r[32:])),
		ino:   le.Uint64(r[40:]),
	}, le.Uint32(r[12:])&flagIndexed != 0
}

// lookup returns the id of the file at rel (relative to the root).
func (ix *Index) lookup(rel string) (int, bool) {
	i := sort.Search(ix.nfiles, func(i int) bool { return string(ix.nameBytes(i)) >= rel })
	if i < ix.nfiles && string(ix.nameBytes(i)) == rel {
		return i, true
	}
	return 0, false
}

// bases returns, per id, the first id of its content, and the first ids
// of the contents of more than one chunk, ascending.
func (ix *Index) bases() ([]int32, []uint32) {
	ix.basesOnce.Do(func() {
		ix.base = make([]int32, ix.ncontent)
		seen := make([]uint64, (ix.ncontent+63)/64) // a content's links name it again
		for i := range ix.nfiles {
			cid, n := ix.content(i), ix.chunks(i)
			if n == 1 || has(seen, cid) {
				ix.base[cid] = int32(cid)
				continue
			}
			set(seen, cid)
			for c := cid; c < cid+n; c++ {
				ix.base[c] = int32(cid)
			}
			if n > 1 && (len(ix.chunked) == 0 || ix.chunked[len(ix.chunked)-1] != uint32(cid)) {
				ix.chunked = append(ix.chunked, uint32(cid))
			}
		}
		slices.Sort(ix.chunked)
		ix.chunked = slices.Compact(ix.chunked)
	})
	return ix.base, ix.chunked
}

// filePosting returns the contents holding trigram t in any chunk, by
// their first ids, ascending, for a multiline search; a trigram with a
// newline in its first two bytes may straddle two chunks (each ends after
// one), so every chunked content is among its contents.
func (ix *Index) filePosting(t uint32) []uint32 {
	base, chunked := ix.bases()
	l := ix.posting(t)
	out := l[:0]
	for _, id := range l {
		if b := uint32(base[id]); len(out) == 0 || out[len(out)-1] != b {
			out = append(out, b)
		}
	}
	if byte(t>>16) == '\n' || byte(t>>8) == '\n' {
		out = union(out, chunked)
	}
	return out
}

// posting returns the ids of the contents holding trigram t, ascending.
func (ix *Index) posting(t uint32) []uint32 {
	out := []uint32{}
	ix.postings(t, func(id uint32, _ uint8) bool { out = append(out, id); return true })
	return out
}

// postings calls fn with each content holding trigram t, ascending, and
// the trigram's pair mask there, until fn returns false.
func (ix *Index) postings(t uint32, fn func(id uint32, next uint8) bool) {
	le := binary.LittleEndian
	i := sort.Search(ix.ntrig, func(i int) bool { return le.Uint32(ix.trigrams[i*trigRecSize:]) >= t })
	if i == ix.ntrig {
		return
	}
	r := ix.trigrams[i*trigRecSize : (i+1)*trigRecSize]
	if le.Uint32(r) != t {
		return
	}
	n, off := le.Uint32(r[4:]), le.Uint64(r[8:])
	if off > uint64(len(ix.post)) {
		return
	}
	p := ix.post[off:]
	var id uint32
	for range n {
		d, k := binary.Uvarint(p)
		if k <= 0 || k >= len(p) {
			return
		}
		id += uint32(d)
		if int(id) >= ix.ncontent {
			return
		}
		if !fn(id, p[k]) {
			return
		}
		p = p[k+1:]
	}
}

// rel returns path relative to the index's root, if it lies below it.
func (ix *Index) rel(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, strings.TrimSuffix(ix.root, "/"))
	if !ok || len(rest) < 2 || rest[0] != '/' {
		return "", false
	}
	return rest[1:], true
}

// remove deletes path, ignoring a file already gone.
func remove(path string) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return
	}
}
