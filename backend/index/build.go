package index

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/pattern"
)

const (
	// maxIndexedSize: bigger files are listed, not indexed (always
	// candidates, read by every narrowed search). Generated headers run
	// to tens of MiB (Linux has one of 24 MiB), and on a monorepo each
	// copy of one is read by every search it is left out of.
	maxIndexedSize = 64 << 20
	// maxFilePairs: a file whose chunks hold more (trigram, chunk) pairs
	// than this is left out too; it would fill runs alone.
	maxFilePairs = 1 << 22
	// chunkSize: a file is indexed in chunks of at least this many bytes,
	// each ending at a line end. A match lies within one line unless the
	// search is multiline, so a big file is a candidate only if one chunk
	// holds all the query needs; indexed whole, a generated header of
	// register names holds the trigrams of nearly any identifier.
	chunkSize = backend.ChunkSize
	// runPairs bounds the build's memory: (trigram, file) pairs are
	// collected up to this many (8 bytes each, 32 MiB, and as much again
	// to sort them), sorted and spilled to a run file as delta varints
	// (about 2 bytes a pair, where 8 a pair left more run files than the
	// tree on a 20 GB monorepo), and the runs are merged at the end.
	runPairs = 1 << 22
)

// buildStats describes one build.
type buildStats struct {
	Files, Indexed int
	Bytes          int64 // distinct content indexed
	Read           int64 // content read (identical contents counted each time)
	Contents       int   // distinct contents read
	Reused         int   // files kept from the old index unread
	Known          int   // files read again whose content the old index held
	Took           time.Duration
	Merge          time.Duration // of Took: merging the postings and writing the file
}

// builder turns a list of files into an index file.
type builder struct {
	root    string
	dir     string // the cache directory; runs are spilled here
	yield   func() // called between files: waits while searches run
	workers int    // reading goroutines
	report  func(done, all int)
	// settle: a file changed this close to when it was read may change
	// again within one tick of the file system's clock without its times
	// moving, so it is listed but not indexed (git's "racy" rule).
	settle time.Duration

	// listed: the listing's sizes and times, one per name, or nil. A
	// file whose size and time the listing found as the old index has
	// them keeps its record without a stat of its own: the check that
	// follows compares inodes and change times with the tree (what moved
	// there is searched, and more than 1% updates again, then with
	// stats). nil: every kept file is stat'ed.
	listed []fileInfo

	// offset is added to the new pairs (the new contents' ids follow the
	// old contents kept, which old's postings give through remap).
	offset uint64
	old    *Index
	remap  []uint32 // per old id: its new one, or deadContent

	mu    sync.Mutex
	pairs []uint64 // see pairOf
	tmp   []uint64 // radixSort's scratch
	runs  []string
}

// build indexes names (sorted, relative to b.root) into the file out.
func (b *builder) build(ctx context.Context, names []string, out string) (buildStats, error) {
	return b.update(ctx, nil, names, out)
}

// update indexes names (sorted, relative to b.root) into the file out,
// taking from old (the root's index in use, or nil) every file whose
// metadata is still what old recorded (see listed): such a file is not
// read, and its postings are copied from old's (renumbered, the
// contents no file keeps dropped). Only the files that changed, or are
// new, are read, and one whose content old holds (by its SHA-256) posts
// nothing new; a change of 1% of the files costs about 1% of a build's
// reading, plus one pass over the old postings.
//
// It runs in phases: plan (match the names with old's files), scan
// (keep or read each name, post each new content), renumber (the
// contents kept and read), records and hashes, then write.
func (b *builder) update(ctx context.Context, old *Index, names []string, out string) (buildStats, error) {
	start := time.Now()
	defer b.cleanRuns()
	root, err := os.OpenRoot(b.root)
	if err != nil {
		return buildStats{Files: len(names)}, err
	}
	defer root.Close()
	u := b.plan(ctx, root, old, names)
	if err := u.scan(); err != nil {
		return u.st, err
	}
	remap, live := u.renumber()
	ids, nchunks := u.records(remap, live)
	hashes, err := u.hashes(remap, live)
	if err != nil {
		return u.st, err
	}
	b.offset, b.old, b.remap = uint64(live)<<8, old, remap
	defer func() { b.pairs, b.old, b.remap = nil, nil, nil }() // a builder may be used again
	merge := time.Now()
	if err := b.write(names, u.metas, u.flags, ids, nchunks, hashes, out); err != nil {
		return u.st, err
	}
	u.st.Took, u.st.Merge = time.Since(start), time.Since(merge)
	return u.st, nil
}

// updateState is one update's state, shared by its reading goroutines
// (mu guards what they change together); it lets each phase of update be
// a method, with no closure in the loop over the names.
//
// Hard links share one content: the first link met is read (the
// inode's owner), the others only stat'ed; a link is indexed when its
// metadata is the owner's as read (a change in between moves the
// shared times). Distinct files of identical content (a vendored copy,
// a second checkout of a tree) share one too, found by the SHA-256 of
// what was read: its trigrams are extracted and posted once. Each
// such file is still its own inode to the check (inodeGroups).
type updateState struct {
	b     *builder
	ctx   context.Context
	root  *os.Root
	old   *Index
	names []string
	st    buildStats

	metas    []meta
	flags    []uint32
	nextID   atomic.Uint32
	contents []contentInfo
	byInode  map[[2]uint64]int32          // (device, inode) -> its owner
	byHash   map[[sha256.Size]byte]uint32 // what was read -> its content
	owner    []int32                      // the file whose read stands for this one's inode
	cids     []uint32                     // owners only
	slots    chan *scratch

	// oldOf: each name's file in old (-1: none); reused: the old file
	// whose record a name keeps (+1; 0: read anew). oldByHash finds the
	// old content a file read again holds (a file whose times alone
	// moved, a copy of a file the index holds): oldContent then names
	// its old file (+1) instead of cids a new content.
	oldOf, reused, oldContent []int32
	oldByHash                 map[[sha256.Size]byte]int32

	mu         sync.Mutex
	next, done int // the first name no goroutine took; names done
	firstErr   error
}

// contentInfo is a content read by the update.
type contentInfo struct {
	ok      bool
	text    bool   // no NUL byte
	base, n uint32 // its chunks' ids
	sum     [sha256.Size]byte
}

// scratch is a worker slot's memory for trigram extraction.
type scratch struct {
	seen  []uint64
	nexts []uint8
	tris  []uint32
	ends  []int
}

// plan sets an update up: its per-name tables, the worker slots, and
// with old, which old file each name is and old's contents by hash.
func (b *builder) plan(ctx context.Context, root *os.Root, old *Index, names []string) *updateState {
	u := &updateState{b: b, ctx: ctx, root: root, old: old, names: names, st: buildStats{Files: len(names)},
		metas: make([]meta, len(names)), flags: make([]uint32, len(names)),
		byInode: map[[2]uint64]int32{}, byHash: map[[sha256.Size]byte]uint32{},
		owner: make([]int32, len(names)), cids: make([]uint32, len(names)),
		oldByHash: map[[sha256.Size]byte]int32{}}
	// Reading waits on the disk more than on the processor: more
	// goroutines read than the workers the build may keep busy, and
	// hashing and trigram extraction take one of b.workers slots, each
	// with its scratch (18 MiB: a bit and a pair mask per trigram).
	u.slots = make(chan *scratch, b.workers)
	for range b.workers {
		u.slots <- &scratch{seen: make([]uint64, maxTrigram/64), nexts: make([]uint8, maxTrigram)}
	}
	if old == nil {
		return u
	}
	u.oldContent = make([]int32, len(names))
	for j := range old.nfiles {
		if _, indexed := old.fileMeta(j); indexed {
			if h := old.hash(old.content(j)); h != ([sha256.Size]byte{}) {
				u.oldByHash[h] = int32(j)
			}
		}
	}
	u.oldOf, u.reused = make([]int32, len(names)), make([]int32, len(names))
	j := 0
	for i, n := range names {
		for j < old.nfiles && string(old.nameBytes(j)) < n {
			j++
		}
		u.oldOf[i] = -1
		if j < old.nfiles && string(old.nameBytes(j)) == n {
			u.oldOf[i] = int32(j)
		}
	}
	return u
}

// scan keeps or reads every name with b.workers*readersPerWorker
// goroutines, then gives each content not indexed an id (which no
// posting names).
func (u *updateState) scan() error {
	var wg sync.WaitGroup
	for range u.b.workers * readersPerWorker {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.readNames()
		}()
	}
	wg.Wait()
	if err := u.ctx.Err(); err != nil {
		return err
	}
	if u.firstErr != nil {
		return u.firstErr
	}
	u.st.Contents = len(u.contents)
	for i := range u.contents {
		if !u.contents[i].ok {
			u.contents[i].base, u.contents[i].n = u.nextID.Add(1)-1, 1
		}
	}
	return nil
}

// readNames is one reading goroutine: it takes batches of consecutive
// names (a directory's files come together) until none is left, the
// context ends or a run cannot be spilled.
func (u *updateState) readNames() {
	var buf []byte
	ds := &dirStat{root: u.root}
	defer ds.close()
	var at, end int // this goroutine's batch of names
	for {
		if at == end {
			u.b.yield()
			u.mu.Lock()
			at, end = u.next, min(u.next+batchNames, len(u.names))
			u.next = end
			u.mu.Unlock()
		}
		if at >= len(u.names) || u.ctx.Err() != nil {
			return
		}
		i := at
		at++
		if u.reuse(i, ds) {
			continue
		}
		if err := u.read(i, &buf); err != nil {
			u.mu.Lock()
			u.firstErr = cmpOr(u.firstErr, err)
			u.mu.Unlock()
			return
		}
	}
}

// reuse reports whether name i keeps its old record unread: old indexed
// it, and the listing's size and time, or else a stat, find the
// metadata old recorded.
func (u *updateState) reuse(i int, ds *dirStat) bool {
	if u.old == nil || u.oldOf[i] < 0 {
		return false
	}
	was, indexed := u.old.fileMeta(int(u.oldOf[i]))
	listed := u.b.listed
	keep := indexed && listed != nil && listed[i].size == was.size && listed[i].mtime == was.mtime
	if indexed && !keep {
		m, ok := ds.stat(u.names[i])
		keep = ok && was == m
	}
	if !keep {
		return false
	}
	u.reused[i] = u.oldOf[i] + 1
	u.mu.Lock()
	u.done++
	u.st.Reused++
	if u.b.report != nil {
		u.b.report(u.done, len(u.names))
	}
	u.mu.Unlock()
	return true
}

// read reads name i (unless another name of its inode stands for it),
// finds its content by hash and, the first time a content is met, posts
// its trigrams; buf is the goroutine's read buffer. An error is a run
// that could not be spilled.
func (u *updateState) read(i int, buf *[]byte) error {
	data, ok := u.open(i, buf)
	var sc *scratch
	if ok {
		sc = <-u.slots
	}
	cid, fresh := u.identify(i, data, ok)
	if fresh {
		if err := u.post(sc, data, cid); err != nil {
			u.slots <- sc
			return err
		}
	}
	if sc != nil {
		u.slots <- sc
	}
	if cap(*buf) > 16<<20 {
		*buf = nil // a rare big file's buffer is not kept for the rest
	}
	u.mu.Lock()
	u.done++
	if ok {
		u.st.Read += int64(len(data))
	}
	if u.b.report != nil {
		u.b.report(u.done, len(u.names))
	}
	u.mu.Unlock()
	return nil
}

// open opens name i, notes its metadata and the name that owns its
// inode (the first met), and reads it if it is that owner and its
// content can be indexed (readForIndex).
func (u *updateState) open(i int, buf *[]byte) (data []byte, ok bool) {
	f, m, key, err := openForIndex(u.root, u.names[i])
	u.metas[i] = m
	u.owner[i] = int32(i)
	if err == nil && key[1] != 0 {
		u.mu.Lock()
		if j, shared := u.byInode[key]; shared {
			u.owner[i] = j
		} else {
			u.byInode[key] = int32(i)
		}
		u.mu.Unlock()
	}
	if err == nil {
		if u.owner[i] == int32(i) {
			data, ok = readForIndex(f, m, u.b.settle, buf)
		}
		f.Close()
	}
	return data, ok
}

// identify finds the content of name i's data by its SHA-256: one old
// holds (noted in oldContent), one read before, or a new one, which
// this name posts (fresh). An owner whose data cannot be indexed (ok
// false) gets a content of its own that no posting names.
func (u *updateState) identify(i int, data []byte, ok bool) (cid uint32, fresh bool) {
	if !ok {
		if u.owner[i] == int32(i) {
			u.mu.Lock()
			u.cids[i] = u.newContent()
			u.mu.Unlock()
		}
		return 0, false
	}
	sum := sha256.Sum256(data)
	if j, had := u.oldByHash[sum]; had {
		u.oldContent[i] = j + 1
		u.mu.Lock()
		u.st.Known++
		u.mu.Unlock()
		return 0, false
	}
	u.mu.Lock()
	var dup bool
	if cid, dup = u.byHash[sum]; !dup {
		cid = u.newContent()
		u.contents[cid].sum = sum
		u.byHash[sum] = cid
		fresh = true
	}
	u.cids[i] = cid
	u.mu.Unlock()
	return cid, fresh
}

// newContent adds a content and returns its id; u.mu is held.
func (u *updateState) newContent() uint32 {
	u.contents = append(u.contents, contentInfo{})
	return uint32(len(u.contents) - 1)
}

// post extracts the trigrams of content cid's chunks, read as data, and
// adds them under ids of their own; a content with more pairs than
// maxFilePairs stays unindexed.
func (u *updateState) post(sc *scratch, data []byte, cid uint32) error {
	sc.tris, sc.ends = chunkTrigrams(data, sc.seen, sc.nexts, sc.tris[:0], sc.ends[:0])
	tris, ends := sc.tris, sc.ends
	if len(tris) > maxFilePairs {
		return nil
	}
	base := u.nextID.Add(uint32(len(ends))) - uint32(len(ends))
	from := 0
	for k, end := range ends {
		if err := u.b.add(tris[from:end], base+uint32(k)); err != nil {
			return err
		}
		from = end
	}
	u.mu.Lock()
	u.contents[cid] = contentInfo{ok: true, text: bytes.IndexByte(data, 0) < 0, base: base, n: uint32(len(ends)), sum: u.contents[cid].sum}
	u.st.Bytes += int64(len(data))
	u.mu.Unlock()
	return nil
}

// renumber numbers the old contents some file keeps from 0, in their
// order (so each old posting list stays ascending); the new ones follow
// them, from live. remap gives each old content's new id, or
// deadContent; it is nil without an old index.
func (u *updateState) renumber() (remap []uint32, live uint32) {
	old := u.old
	if old == nil {
		return nil, 0
	}
	remap = make([]uint32, old.ncontent)
	for i := range remap {
		remap[i] = deadContent
	}
	for _, keep := range [][]int32{u.reused, u.oldContent} {
		for _, r := range keep {
			if r > 0 {
				c, n := old.content(int(r-1)), old.chunks(int(r-1))
				for id := c; id < c+n; id++ {
					remap[id] = 0
				}
			}
		}
	}
	for id, r := range remap {
		if r != deadContent {
			remap[id] = live
			live++
		}
	}
	return remap, live
}

// records gives each name its first content id, chunk count and flags:
// from its old record when kept, from the old content its inode's owner
// read again, or from the content read now. A name is indexed only when
// its metadata is its owner's as read.
func (u *updateState) records(remap []uint32, live uint32) (ids, nchunks []uint32) {
	old, metas, flags := u.old, u.metas, u.flags
	ids = make([]uint32, len(u.names))
	nchunks = make([]uint32, len(u.names))
	for i := range u.names {
		if old != nil && u.reused[i] > 0 {
			j := int(u.reused[i] - 1)
			metas[i], _ = old.fileMeta(j)
			ids[i], nchunks[i] = remap[old.content(j)], uint32(old.chunks(j))
			flags[i] = binary.LittleEndian.Uint32(old.rec(j)[12:]) & (flagIndexed | flagText)
			u.st.Indexed++
			continue
		}
		o := u.owner[i]
		if old != nil && u.oldContent[o] > 0 {
			j := int(u.oldContent[o] - 1)
			ids[i], nchunks[i] = remap[old.content(j)], uint32(old.chunks(j))
			if metas[o] == metas[i] {
				flags[i] = binary.LittleEndian.Uint32(old.rec(j)[12:]) & (flagIndexed | flagText)
				u.st.Indexed++
			}
			continue
		}
		c := u.contents[u.cids[o]]
		ids[i], nchunks[i] = live+c.base, c.n
		if c.ok && metas[o] == metas[i] {
			flags[i] = flagIndexed
			if c.text {
				flags[i] |= flagText
			}
			u.st.Indexed++
		}
	}
	return ids, nchunks
}

// hashes is the index's table of content hashes: the old contents kept,
// then the new ones (a content not indexed keeps zeros).
func (u *updateState) hashes(remap []uint32, live uint32) ([]byte, error) {
	n := u.nextID.Load()
	if uint64(live)+uint64(n) > 1<<32-1 {
		return nil, fmt.Errorf("more contents than an index numbers")
	}
	hashes := make([]byte, (int(live)+int(n))*hashSize)
	for id, r := range remap {
		if r != deadContent {
			h := u.old.hash(id)
			copy(hashes[int(r)*hashSize:], h[:])
		}
	}
	for _, c := range u.contents {
		if c.ok {
			copy(hashes[int(live+c.base)*hashSize:], c.sum[:])
		}
	}
	return hashes, nil
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// openForIndex opens the regular file at rel and returns its metadata
// and (device, inode) key.
func openForIndex(root *os.Root, rel string) (*os.File, meta, [2]uint64, error) {
	f, err := openRegular(root, rel)
	if err != nil {
		return nil, meta{}, [2]uint64{}, err
	}
	m, dev, err := fileMetaOf(f)
	if err != nil {
		f.Close()
		return nil, meta{}, [2]uint64{}, err
	}
	return f, m, [2]uint64{dev, m.ino}, nil
}

// readForIndex reads f, whose metadata is m, if its content can be
// indexed: at most maxIndexedSize bytes, valid UTF-8 (as the pattern's
// classes then match exactly the runes the trigrams spell), not changed
// within settle of now, and the size m says.
func readForIndex(f *os.File, m meta, settle time.Duration, buf *[]byte) (data []byte, ok bool) {
	if m.size > maxIndexedSize {
		return nil, false
	}
	edge := time.Now().Add(-settle).UnixNano()
	if m.mtime >= edge || m.ctime >= edge {
		return nil, false
	}
	if cap(*buf) < int(m.size)+1 {
		*buf = make([]byte, int(m.size)+1)
	}
	b := (*buf)[:m.size+1]
	n, err := io.ReadFull(f, b)
	if err != io.ErrUnexpectedEOF || int64(n) != m.size { // it grew or shrank meanwhile
		return nil, false
	}
	data = b[:n]
	if !utf8.Valid(data) {
		return nil, false
	}
	return data, true
}

// trigrams appends the distinct trigrams of data to out, each as
// trigram<<8 | the pairBits of the two bytes that follow it wherever in
// data two do. seen (a 2^24-bit set) and next (one
// byte per trigram) are scratch, left clear.
func trigrams(data []byte, seen []uint64, next []uint8, out []uint32) []uint32 {
	if len(data) < 3 {
		return out
	}
	start := len(out)
	t := uint32(data[0])<<8 | uint32(data[1])
	for i, c := range data[2:] {
		t = (t<<8 | uint32(c)) & (maxTrigram - 1)
		w, bit := t>>6, uint64(1)<<(t&63)
		if seen[w]&bit == 0 {
			seen[w] |= bit
			out = append(out, t)
		}
		if i+4 < len(data) {
			next[t] |= pairBit(data[i+3], data[i+4])
		}
	}
	for k, t := range out[start:] {
		seen[t>>6] = 0
		out[start+k] = t<<8 | uint32(next[t])
		next[t] = 0
	}
	return out
}

// pairBit is the bit of a trigram's mask that the two bytes a, b after it
// set: a Bloom filter of one hash over 8 bits. With it a posting says
// which pairs may follow its trigram, and a literal's trigrams must
// chain as five-byte windows: a file holding "pm_" only in pm_runtime and
// "m_r" only in stream_reg is no candidate for pm_resume, whose "pm_" is
// followed by "re". The pair is hashed with ASCII letters folded, so that
// an -i literal's letters ask one bit where their two cases would ask
// up to four: on the Linux tree, the pair cut pm_resume's -i candidates
// from 1,470 files (one following byte, case kept) to 385, for 211 that
// match.
func pairBit(a, b byte) uint8 {
	h := uint16(asciiLower(a))*0x9d + uint16(asciiLower(b))*0x3b
	return 1 << ((h >> 5) & 7)
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// chunkTrigrams appends to out the distinct trigrams (with their masks)
// of each chunk of data (see chunkSize), one chunk after another, and to ends where each
// chunk's end in out.
func chunkTrigrams(data []byte, seen []uint64, next []uint8, out []uint32, ends []int) ([]uint32, []int) {
	for from := 0; from < len(data); {
		end := backend.ChunkEnd(data, from)
		out = trigrams(data[from:end], seen, next, out)
		if pattern.IndexNonASCII(data[from:end], 0) >= 0 {
			out = append(out, nonASCIITrigram<<8)
		}
		ends = append(ends, len(out))
		from = end
	}
	if len(ends) == 0 {
		ends = append(ends, 0) // an empty file is one chunk with nothing in it
	}
	return out, ends
}

// add records that content id holds tris (each trigram<<8 | its mask),
// spilling a full run to disk.
func (b *builder) add(tris []uint32, id uint32) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pairs == nil {
		b.pairs = make([]uint64, 0, runPairs+runPairs/4) // no doubling on the way to a spill
	}
	for _, t := range tris {
		b.pairs = append(b.pairs, pairOf(t>>8, id, uint8(t)))
	}
	if len(b.pairs) >= runPairs {
		return b.spill()
	}
	return nil
}

// pairOf packs a posting for sorting: trigram<<40 | content id<<8 | the
// trigram's pair mask in that content. A content holds a trigram
// once, so the mask never splits a (trigram, id) pair in two.
func pairOf(t, id uint32, mask uint8) uint64 { return uint64(t)<<40 | uint64(id)<<8 | uint64(mask) }

// radixSort sorts a in place, 16 bits a pass from the lowest (a pair's
// 64 bits take four), with tmp as scratch; it returns tmp,
// grown if needed, for the next call. The pairs are sorted once per run,
// and a comparison sort of them was half of a build's time.
func radixSort(a, tmp []uint64) []uint64 {
	if len(a) < 2 {
		return tmp
	}
	if cap(tmp) < len(a) {
		tmp = make([]uint64, len(a), cap(a))
	}
	tmp = tmp[:len(a)]
	src, dst := a, tmp
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count[:])
		for _, v := range src {
			count[(v>>shift)&0xffff]++
		}
		if count[(src[0]>>shift)&0xffff] == len(src) {
			continue // one digit throughout: nothing to move
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, v := range src {
			d := (v >> shift) & 0xffff
			dst[count[d]] = v
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
	return tmp
}

// spill sorts the pairs in memory and writes them to a run file, each
// pair as the varint of its difference from the one before.
func (b *builder) spill() error {
	b.tmp = radixSort(b.pairs, b.tmp)
	f, err := os.CreateTemp(b.dir, "run-*.tmp")
	if err != nil {
		return err
	}
	b.runs = append(b.runs, f.Name())
	w := bufio.NewWriterSize(f, 1<<16)
	var x [binary.MaxVarintLen64]byte
	var prev uint64
	for _, p := range b.pairs {
		w.Write(x[:binary.PutUvarint(x[:], p-prev)])
		prev = p
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	b.pairs = b.pairs[:0]
	return err
}

func (b *builder) cleanRuns() {
	for _, r := range b.runs {
		remove(r)
	}
	b.runs = nil
}

// write merges the runs and the pairs in memory into the index file out,
// written beside it under a temporary name and renamed into place.
//
// The file is written in one pass: a header of zeros first, the records
// and names (writeFiles), the postings as the merge yields them
// (mergePostings), then the trigram table and the hashes; the header is
// filled in at the end, and the checksum read back from the file (seal;
// no temporary copy of the postings: on the 20 GB tree that copy was as
// big as the index).
func (b *builder) write(names []string, metas []meta, flags []uint32, ids, nchunks []uint32, hashes []byte, out string) (err error) {
	ncontent := len(hashes) / hashSize
	b.tmp = radixSort(b.pairs, b.tmp)
	b.tmp = nil
	src := &merger{}
	var opened []*os.File
	defer func() {
		for _, f := range opened {
			f.Close()
		}
	}()
	if opened, err = b.openRuns(src); err != nil {
		return err
	}
	var nnames uint64
	for _, n := range names {
		nnames += uint64(len(n))
	}
	if nnames > maxNameBytes {
		return fmt.Errorf("the file names take %d bytes, more than an index holds", nnames)
	}
	f, err := os.CreateTemp(b.dir, "index-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 1<<16)
	b.writeFiles(w, names, metas, flags, ids, nchunks)
	pw := &postingWriter{w: w, cur: maxTrigram}
	if err := b.mergePostings(src, pw); err != nil {
		return err
	}
	// The runs are merged: their disk is freed before the rest is written.
	for _, f := range opened {
		f.Close()
	}
	opened = nil
	b.cleanRuns()
	w.Write(pw.table)
	w.Write(hashes)
	if err := w.Flush(); err != nil {
		return err
	}
	hdr := []byte(magic)
	for _, v := range []uint64{uint64(len(names)), uint64(ncontent), uint64(len(pw.table) / trigRecSize), nnames, pw.postLen, uint64(len(b.root)), backend.ChunkSize} {
		hdr = binary.LittleEndian.AppendUint64(hdr, v)
	}
	return seal(f, hdr, out)
}

// openRuns adds the run files and the pairs in memory to src; it
// returns the files it opened, to be closed once merged (with an
// error, those opened so far).
func (b *builder) openRuns(src *merger) ([]*os.File, error) {
	var opened []*os.File
	for _, r := range b.runs {
		f, err := os.Open(r)
		if err != nil {
			return opened, err
		}
		opened = append(opened, f)
		src.add(&runReader{r: f, add: b.offset})
	}
	src.add(&runReader{block: b.pairs, add: b.offset})
	return opened, nil
}

// writeFiles writes the header's zeros, the root, a record per file and
// the names.
func (b *builder) writeFiles(w *bufio.Writer, names []string, metas []meta, flags []uint32, ids, nchunks []uint32) {
	le := binary.LittleEndian
	w.Write(make([]byte, headerFixed))
	w.WriteString(b.root)
	var rec [fileRecSize]byte
	var off uint64
	for i, n := range names {
		m := metas[i]
		le.PutUint64(rec[0:], off)
		le.PutUint32(rec[8:], uint32(len(n)))
		le.PutUint32(rec[12:], flags[i])
		le.PutUint64(rec[16:], uint64(m.size))
		le.PutUint64(rec[24:], uint64(m.mtime))
		le.PutUint64(rec[32:], uint64(m.ctime))
		le.PutUint64(rec[40:], m.ino)
		le.PutUint32(rec[48:], ids[i])
		le.PutUint32(rec[52:], nchunks[i])
		w.Write(rec[:])
		off += uint64(len(n))
	}
	for _, n := range names {
		w.WriteString(n)
	}
}

// postingWriter writes the postings, trigram by trigram, and builds the
// trigram table that points into them.
type postingWriter struct {
	w       *bufio.Writer
	table   []byte
	postLen uint64
	cur     uint32 // the trigram being written; maxTrigram: none yet
	count   uint32 // its postings so far
	last    uint32 // its last content id
	countAt int    // where its count goes in table
	vb      [binary.MaxVarintLen64 + 1]byte
}

// post writes content id's posting of trigram t, starting t's list if
// t is new; a second posting of the same id is dropped.
func (pw *postingWriter) post(t, id uint32, mask uint8) {
	if t != pw.cur {
		pw.start(t, 0)
	} else if id == pw.last && pw.count > 0 {
		return
	}
	n := binary.PutUvarint(pw.vb[:], uint64(id-pw.last))
	pw.vb[n] = mask
	pw.w.Write(pw.vb[:n+1])
	pw.postLen += uint64(n + 1)
	pw.last = id
	pw.count++
}

// raw writes trigram t's list whole, as the old index holds it: n
// postings, the last naming lastID. An update whose old contents all
// keep their ids (times touched, files added) copies each old list so,
// and the merge only learns its count and last id.
func (pw *postingWriter) raw(t uint32, p []byte, n, lastID uint32) {
	pw.start(t, n)
	pw.last = lastID
	pw.w.Write(p)
	pw.postLen += uint64(len(p))
}

// start ends the trigram being written (its count into the table) and
// starts t's table record, with n postings to come.
func (pw *postingWriter) start(t, n uint32) {
	pw.end()
	pw.cur, pw.count, pw.last = t, n, 0
	pw.countAt = len(pw.table) + 4
	pw.table = binary.LittleEndian.AppendUint32(pw.table, t)
	pw.table = binary.LittleEndian.AppendUint32(pw.table, n)
	pw.table = binary.LittleEndian.AppendUint64(pw.table, pw.postLen)
}

// end fills in the count of the trigram being written, if any.
func (pw *postingWriter) end() {
	if pw.cur != maxTrigram {
		binary.LittleEndian.PutUint32(pw.table[pw.countAt:], pw.count)
	}
}

// mergePostings writes every posting through pw, in order: the merged
// runs' pairs and, with an old index, its postings before the new ones
// of each trigram (fromOld).
func (b *builder) mergePostings(src *merger, pw *postingWriter) error {
	op := b.fromOld(pw)
	post := pw.post // one method value for every call of each
	for n := 0; ; n++ {
		if n%(1<<16) == 0 {
			b.yield() // the merge, too, waits while searches run
		}
		p, ok := src.next()
		if ok && p.err != nil {
			return p.err
		}
		upto := uint32(maxTrigram)
		if ok {
			upto = uint32(p.v >> 40)
		}
		if op != nil {
			if err := op.each(upto, post); err != nil {
				return err
			}
		}
		if !ok {
			break
		}
		pw.post(uint32(p.v>>40), uint32(p.v>>8), uint8(p.v))
	}
	pw.end()
	return nil
}

// fromOld reads an update's old postings (nil for a build). They come
// first in each trigram (their ids, renumbered, all precede the new
// ones), read straight from the old index rather than through the
// merge's heap: most of an update's postings are these.
func (b *builder) fromOld(pw *postingWriter) *oldPostings {
	if b.old == nil {
		return nil
	}
	// A content no posting names (not indexed: binary, not UTF-8,
	// too big; read again by the update) may drop out without
	// changing the rest: the build numbers those last.
	posted := make([]bool, len(b.remap))
	for j := range b.old.nfiles {
		if _, indexed := b.old.fileMeta(j); indexed {
			for c := b.old.content(j); c < b.old.content(j)+b.old.chunks(j); c++ {
				posted[c] = true
			}
		}
	}
	op := &oldPostings{ix: b.old, remap: b.remap, same: true, raw: pw.raw}
	for id, r := range b.remap {
		op.same = op.same && (r == uint32(id) || r == deadContent && !posted[id])
	}
	return op
}

// seal writes hdr over the start of f, appends the checksum of the
// whole file read back, and renames f to out. The checksum trails the
// file; the file reaches the disk before its name does, so a crash
// leaves the old index or the new, whole.
func seal(f *os.File, hdr []byte, out string) error {
	if _, err := f.WriteAt(hdr, 0); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	sum := crc32.New(castagnoli)
	if _, err := io.Copy(sum, f); err != nil {
		return err
	}
	if _, err := f.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32())); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), out)
}

// pair is one merged (trigram, content) pair, or a read error.
type pair struct {
	v   uint64
	err error
}

// runReader reads one sorted run, from a file (a block of pairs at a
// time, decoded from spill's delta varints) or from memory.
type runReader struct {
	r      io.Reader
	add    uint64   // added to each pair (builder.offset)
	block  []uint64 // pairs read and not yet taken
	buf    []uint64 // block's storage for a file
	raw    []byte   // bytes read, raw[rp:rn] not yet decoded
	rp, rn int
	eof    bool
	prev   uint64
	head   pair
}

func (r *runReader) advance() bool {
	if len(r.block) == 0 {
		if r.r == nil {
			return false
		}
		if err := r.fill(); err != nil {
			r.head = pair{err: err}
			return true
		}
		if len(r.block) == 0 {
			return false
		}
	}
	r.head, r.block = pair{v: r.block[0] + r.add}, r.block[1:]
	return true
}

// deadContent marks an old content no file keeps (builder.remap).
const deadContent = ^uint32(0)

// oldPostings reads an index's postings, trigram by trigram, with the
// content ids renumbered by remap and the dead ones dropped.
type oldPostings struct {
	ix    *Index
	remap []uint32
	ti    int  // the next trigram record
	same  bool // remap is the identity: raw takes each list whole
	raw   func(t uint32, p []byte, n, last uint32)
}

// each calls fn with the postings of every trigram up to and including
// upto not read yet, in order.
func (o *oldPostings) each(upto uint32, fn func(t, id uint32, mask uint8)) error {
	le := binary.LittleEndian
	for ; o.ti < o.ix.ntrig; o.ti++ {
		r := o.ix.trigrams[o.ti*trigRecSize:]
		t, left, p := le.Uint32(r), le.Uint32(r[4:]), o.ix.post[le.Uint64(r[8:]):]
		if t > upto {
			return nil
		}
		if o.same && left > 0 {
			var id uint32
			q := p
			for range left {
				d, k := binary.Uvarint(q)
				if k <= 0 || k >= len(q) || d >= uint64(len(o.remap)) {
					return errCorrupt("a posting list runs past the postings")
				}
				id += uint32(d)
				q = q[k+1:]
			}
			if int(id) >= len(o.remap) {
				return errCorrupt("a posting names no content")
			}
			o.raw(t, p[:len(p)-len(q)], left, id)
			continue
		}
		var id uint32
		for ; left > 0; left-- {
			d, k := binary.Uvarint(p)
			if k <= 0 || k >= len(p) {
				return errCorrupt("a posting list runs past the postings")
			}
			id += uint32(d)
			if int(id) >= len(o.remap) {
				return errCorrupt("a posting names no content")
			}
			if nid := o.remap[id]; nid != deadContent {
				fn(t, nid, p[k])
			}
			p = p[k+1:]
		}
	}
	return nil
}

// fill decodes the next block of pairs.
func (r *runReader) fill() error {
	if r.raw == nil {
		r.raw, r.buf = make([]byte, 1<<16), make([]uint64, 1<<13)
	}
	n := 0
	for n < len(r.buf) {
		if r.rn-r.rp < binary.MaxVarintLen64 && !r.eof {
			r.rn = copy(r.raw, r.raw[r.rp:r.rn])
			r.rp = 0
			m, err := io.ReadFull(r.r, r.raw[r.rn:])
			r.rn += m
			switch err {
			case nil:
			case io.EOF, io.ErrUnexpectedEOF:
				r.eof = true
			default:
				return err
			}
		}
		if r.rp == r.rn {
			break
		}
		d, k := binary.Uvarint(r.raw[r.rp:r.rn])
		if k <= 0 {
			return fmt.Errorf("a run file ends inside a pair")
		}
		r.rp += k
		r.prev += d
		r.buf[n] = r.prev
		n++
	}
	r.block = r.buf[:n]
	return nil
}

// merger merges sorted runs: a binary heap on the runs' heads.
type merger []*runReader

func (m *merger) add(r *runReader) {
	if !r.advance() {
		return
	}
	*m = append(*m, r)
	h := *m
	for j := len(h) - 1; j > 0; { // sift up
		i := (j - 1) / 2
		if h[i].head.v <= h[j].head.v {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (m *merger) next() (pair, bool) {
	h := *m
	if len(h) == 0 {
		return pair{}, false
	}
	r := h[0]
	p := r.head
	if p.err != nil {
		return p, true
	}
	if !r.advance() {
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		*m = h
	}
	for i := 0; ; { // sift down
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		c := l
		if r := l + 1; r < len(h) && h[r].head.v < h[l].head.v {
			c = r
		}
		if h[i].head.v <= h[c].head.v {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return p, true
}

// workersFor is how many goroutines hash and extract trigrams for a
// build: half the cores, so serving keeps the rest.
func workersFor() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// readersPerWorker: files are opened and read by this many goroutines per
// worker, so that the disk has several reads to serve while one content
// is hashed and indexed.
const readersPerWorker = 4

// batchNames is how many consecutive names a reading goroutine takes at
// a time.
const batchNames = 64

// cacheFile is the index file's name in its directory.
func cacheFile(dir string) string { return filepath.Join(dir, "index.bin") }
