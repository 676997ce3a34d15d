package journal

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsmcp/fsmcp/filelock"
)

// Store is the journal of one DIR: a directory (0700) holding
//
//	root            the DIR's real path
//	bound           the bounds the last server used (for fsmcp undo)
//	lock            the lock appends and pruning take across processes
//	seg/N.log       entries, as JSON lines, oldest segment first
//	seg/N.ID.pack   a step's larger contents
//	seg/N.held/     objects moved or linked into the journal
//	seg/N.usage     the disk those objects take
//	pins/ID         held locked by the process while its step is open
//
// Pruning removes whole segments, oldest first.
type Store struct {
	set  *Set
	dir  string
	base string
	fs   *os.Root

	mu     sync.Mutex
	lastID int64
	cur    int   // the segment new steps go to, as last seen (0: not yet)
	extra  int64 // bytes this process put in it since it last looked
	seen   time.Time
	start  time.Time // when cur began (its first record)
	// owner is this process's pin, locked while it lives: it names the
	// segments its steps write, so other processes leave them (pinned),
	// and the begin records it writes, so they can tell its steps in
	// progress from steps cut short (live).
	owner     *os.File
	ownerName string
	ownerSegs map[int]bool
	log       *sharedLog // the log steps write, kept open (sharedlog.go)
}

const (
	segDir    = "seg"
	pinDir    = "pins"
	logName   = "log"
	heldDir   = "held"
	usageName = "usage"
)

func openStore(s *Set, dir, base string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the change journal %s: %v; pass --journal off to run without it", dir, err)
	}
	os.Chmod(s.cfg.Dir, 0o700) // MkdirAll leaves an existing one as it was
	fsys, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot open the change journal %s: %v; pass --journal off to run without it", dir, err)
	}
	fsys.Chmod(".", 0o700)
	for _, d := range []string{segDir, pinDir} {
		fsys.Mkdir(d, 0o700)
	}
	if b, err := fsys.ReadFile("root"); err != nil || strings.TrimSpace(string(b)) != base {
		fsys.WriteFile("root", []byte(base+"\n"), 0o600)
	}
	return &Store{set: s, dir: dir, base: base, fs: fsys}, nil
}

// Root is the real path of the DIR this journal is for.
func (st *Store) Root() string { return st.base }

// Dir is the journal's directory.
func (st *Store) Dir() string { return st.dir }

// bound is what the bound file holds.
type bound struct {
	MaxSize int64 `json:"max_size"`
	MaxAge  int64 `json:"max_age_seconds"`
}

// WriteBound records the Set's bounds, so that fsmcp undo and history,
// run from a terminal, use the server's and not their own defaults.
func (st *Store) WriteBound() {
	b, _ := json.Marshal(bound{st.set.cfg.MaxSize, int64(st.set.cfg.MaxAge / time.Second)})
	st.fs.WriteFile("bound", b, 0o600)
}

// ReadBound returns the bounds the last server recorded for the DIR's
// journal under dir.
func ReadBound(dir, base string) (size int64, age time.Duration, ok bool) {
	b, err := os.ReadFile(storeDir(dir, base) + "/bound")
	var v bound
	if err != nil || json.Unmarshal(b, &v) != nil || v.MaxSize <= 0 {
		return 0, 0, false
	}
	return v.MaxSize, time.Duration(v.MaxAge) * time.Second, true
}

// locked runs fn under the cross-process lock.
func (st *Store) locked(fn func() error) error {
	f, err := st.fs.OpenFile("lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := filelock.Lock(f); err != nil {
		return err
	}
	return fn()
}

// segments lists the segment numbers, oldest first.
func (st *Store) segments() []int {
	var out []int
	for n := range st.segmentFiles() {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// segmentFiles lists the files of each segment (a segment is the files
// of seg/ whose names start with its number).
func (st *Store) segmentFiles() map[int][]fs.DirEntry {
	out := map[int][]fs.DirEntry{}
	d, err := st.fs.Open(segDir)
	if err != nil {
		return out
	}
	defer d.Close()
	ents, _ := d.ReadDir(-1)
	for _, e := range ents {
		num, _, ok := strings.Cut(e.Name(), ".")
		if i, err := strconv.Atoi(num); ok && err == nil && i > 0 {
			out[i] = append(out[i], e)
		}
	}
	return out
}

// segPath is the path of a segment's file: its log, usage, a pack, or
// its held directory.
func segPath(n int, name string) string {
	return path.Join(segDir, fmt.Sprintf("%08d.%s", n, name))
}

// segLimit is how large a segment grows before a new step starts the
// next: a sixteenth of the bound, at least 32 KiB, so pruning frees the
// disk in steps small beside the whole.
func (st *Store) segLimit() int64 { return max(32<<10, st.set.cfg.MaxSize/16) }

// openSegment returns the segment a new step writes to: the newest, or a
// new one when the newest is full (st.mu and the lock held).
func (st *Store) openSegment() (int, error) {
	if n, ok := st.recent(); ok {
		return n, nil
	}
	if st.cur > 0 {
		st.seen = time.Now()
		if _, err := st.fs.Lstat(segPath(st.cur+1, logName)); err != nil {
			if d := st.diskOf(st.cur); d < st.segLimit() && !st.spanOver(st.cur) {
				st.extra = 0
				return st.cur, nil
			}
		}
	}
	segs := st.segments()
	n := 1
	if len(segs) > 0 {
		n = segs[len(segs)-1]
		if st.diskOf(n) >= st.segLimit() || st.spanOver(n) {
			n++
		}
	}
	if n != st.cur {
		st.cur, st.extra, st.start = n, 0, time.Time{}
	}
	st.seen = time.Now()
	return n, nil
}

// recent returns the segment seen a moment ago, while its log is far
// from full and its span not over: no lock and no stat (st.mu held).
func (st *Store) recent() (int, bool) {
	if st.cur > 0 && time.Since(st.seen) < time.Second && st.extra < st.segLimit()/2 && !st.start.IsZero() && time.Since(st.start) < st.set.segSpan() {
		return st.cur, true
	}
	return 0, false
}

// spanOver reports whether segment n began a span or more ago: a
// segment also ends with time, so that a quiet journal ages out (the
// segment being written is never pruned, and one that only small edits
// fill would take them for as long as new ones land beside them).
func (st *Store) spanOver(n int) bool {
	if n != st.cur || st.start.IsZero() {
		st.start = st.segStart(n)
		if st.start.IsZero() {
			st.start = time.Now() // a new segment begins now
			return false
		}
	}
	return time.Since(st.start) >= st.set.segSpan()
}

// segStart is the time of segment n's first record (zero when it has
// none yet).
func (st *Store) segStart(n int) time.Time {
	f, err := st.fs.Open(segPath(n, logName))
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	b := make([]byte, 64<<10)
	k, _ := io.ReadFull(f, b)
	line, _, _ := bytes.Cut(b[:k], []byte("\n"))
	var r record
	if json.Unmarshal(line, &r) != nil {
		return time.Time{}
	}
	return r.Time
}

// claim records that this process writes segment seg, in its pin (made
// and locked the first time); st.mu held. It returns the pin's name.
func (st *Store) claim(seg int) string {
	if st.owner == nil {
		var b [6]byte
		rand.Read(b[:])
		name := fmt.Sprintf("%d.%s", os.Getpid(), hex.EncodeToString(b[:]))
		f, err := st.fs.OpenFile(pinDir+"/"+name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return ""
		}
		filelock.Lock(f)
		st.owner, st.ownerName, st.ownerSegs = f, name, map[int]bool{}
	}
	if !st.ownerSegs[seg] {
		// The segments before the one written now are no longer ours to
		// keep: another process may prune them.
		for n := range st.ownerSegs {
			if n < seg {
				delete(st.ownerSegs, n)
			}
		}
		st.ownerSegs[seg] = true
		var list []string
		for n := range st.ownerSegs {
			list = append(list, strconv.Itoa(n))
		}
		st.owner.Truncate(0)
		st.owner.WriteAt([]byte(strings.Join(list, ",")), 0)
	}
	return st.ownerName
}

// nextID is a short increasing id, unique across processes sharing the
// journal as far as their clocks tick apart (microseconds).
func (st *Store) nextID() string {
	id := time.Now().UnixMicro()
	if id <= st.lastID {
		id = st.lastID + 1
	}
	st.lastID = id
	return strconv.FormatInt(id, 36)
}

// record is one line of a segment's log.
type record struct {
	T  string `json:"t"` // b begin, o op, a after, e end, s see
	ID string `json:"id"`
	// b
	Time    time.Time `json:"time,omitzero"`
	Tool    string    `json:"tool,omitempty"`
	Session string    `json:"session,omitempty"`
	Command string    `json:"command,omitempty"`
	Undoes  []string  `json:"undoes,omitempty"`
	Redo    bool      `json:"redo,omitempty"`
	// o
	Op *Op `json:"op,omitempty"`
	// a
	After []Final `json:"after,omitempty"`
	// e (and its Time: when the step ended)
	Notes       []string `json:"notes,omitempty"`
	NotUndoable string   `json:"not_undoable,omitempty"`
	Noop        bool     `json:"noop,omitempty"` // it left everything as it was
	// s: the entry lives in the journal of this DIR
	Home string `json:"home,omitempty"`
	// b: the pin of the process writing the entry
	Owner string `json:"owner,omitempty"`
}

// Final is what a path held when its step ended.
type Final struct {
	Base  string `json:"base,omitempty"` // the DIR, when not the entry's own
	Path  string `json:"p"`
	Image Image  `json:"i"`
}

// append writes recs to segment n's log; sync flushes them to disk
// before it returns.
func (st *Store) append(n int, sync bool, recs ...*record) error {
	f, err := st.openLog(n)
	if err != nil {
		return err
	}
	err = writeRecords(f, sync, recs...)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// openLog opens segment n's log for appending.
func (st *Store) openLog(n int) (*os.File, error) {
	return st.fs.OpenFile(segPath(n, logName), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
}

// writeRecords appends recs to a log opened for appending, in one write:
// an append is whole against other processes' appends (O_APPEND), so
// two servers sharing a journal interleave lines, never bytes.
func writeRecords(f *os.File, sync bool, recs ...*record) error {
	_, err := writeRecordsN(f, sync, recs...)
	return err
}

// writeRecordsN is writeRecords, saying how many bytes it wrote.
func writeRecordsN(f *os.File, sync bool, recs ...*record) (int, error) {
	var buf []byte
	for _, r := range recs {
		var err error
		if buf, err = marshalRecord(buf, wireRecord(r)); err != nil {
			return 0, err
		}
		buf = append(buf, '\n')
	}
	if _, err := f.Write(buf); err != nil {
		return 0, err
	}
	if sync {
		return len(buf), f.Sync()
	}
	return len(buf), nil
}

// Entries reads the log, oldest first. A torn line (a crash mid-append)
// is skipped; a step that never ended (fsmcp was killed) is there, not
// Closed.
func (st *Store) Entries() ([]*Entry, error) {
	var out []*Entry
	byID := map[string]*Entry{}
	for _, n := range st.segments() {
		if err := st.readSegment(n, byID, &out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readSegment adds segment n's entries to out (byID: those read so far).
func (st *Store) readSegment(n int, byID map[string]*Entry, out *[]*Entry) error {
	return st.readSegmentFrom(n, 0, byID, out)
}

// readSegmentFrom is readSegment of the records at or after byte off (a
// line boundary): the entries that begin there.
func (st *Store) readSegmentFrom(n int, off int64, byID map[string]*Entry, out *[]*Entry) error {
	f, err := st.fs.Open(segPath(n, logName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.ID == "" {
			continue
		}
		readRecord(&r)
		e := byID[r.ID]
		if r.T == "b" || r.T == "s" {
			if e != nil {
				continue
			}
			e = &Entry{ID: r.ID, Time: r.Time, Tool: r.Tool, Session: r.Session, Command: r.Command, seg: n, store: st, Home: r.Home, owner: r.Owner}
			byID[r.ID] = e
			*out = append(*out, e)
			continue
		}
		if e == nil {
			continue // its beginning was pruned
		}
		switch r.T {
		case "o":
			if r.Op != nil {
				e.Ops = append(e.Ops, *r.Op)
			}
		case "a":
			e.After = append(e.After, r.After...)
		case "e":
			e.Closed, e.noop, e.ended = true, r.Noop, r.Time
			e.Undoes, e.Redo = r.Undoes, r.Redo
			e.Notes = append(e.Notes, r.Notes...)
			if r.NotUndoable != "" {
				e.NotUndoable = r.NotUndoable
			}
		}
	}
	err = sc.Err()
	f.Close()
	return err
}
