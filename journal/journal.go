// Package journal keeps, for every change fsmcp makes under a root, the
// before-image of what it changes, so the change can be undone: one
// append-only log per root under the user's state directory (never inside
// a root), content blobs stored once by their sha256, compressed, and the
// whole bounded by size and age, oldest out first. An entry is written and
// flushed before the change lands; if it cannot be, the change does not
// land.
package journal

import (
	"bufio"
	"bytes"
	"compress/flate"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Defaults of the bounds.
const (
	DefaultSize = 512 << 20
	DefaultAge  = 7 * 24 * time.Hour
)

// Config says where journals live and how large and old they may grow.
type Config struct {
	Dir     string        // the base directory; one subdirectory per root
	MaxSize int64         // bytes, log and blobs together
	MaxAge  time.Duration // entries older than this go
	// Strict (--journal on given) refuses a change in a root that holds
	// the journal; otherwise that root goes unjournaled (the server
	// warns at start), so "fsmcp ~" keeps working.
	Strict bool
}

// ErrInside says the journal directory lies inside a root.
var ErrInside = errors.New("the change journal lies inside an allowed directory")

// DefaultDir is $XDG_STATE_HOME/fsmcp/journal, else
// ~/.local/state/fsmcp/journal.
func DefaultDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "fsmcp", "journal"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find a state directory for the change journal: %v; set XDG_STATE_HOME or pass --journal off", err)
	}
	return filepath.Join(home, ".local", "state", "fsmcp", "journal"), nil
}

// Image is the state of one path before or after a change.
type Image struct {
	Exists bool        `json:"exists"`
	Dir    bool        `json:"dir,omitempty"`
	Hash   string      `json:"hash,omitempty"` // sha256 of the content (regular files)
	Size   int64       `json:"size,omitempty"`
	Mode   fs.FileMode `json:"mode,omitempty"`
	MTime  time.Time   `json:"mtime,omitzero"`
	Kept   bool        `json:"kept,omitempty"` // the content is in the blob store
	// Owner is the uid and gid, where the system has them.
	Owner *[2]int `json:"owner,omitempty"`
}

// Entry is one change.
type Entry struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Tool    string    `json:"tool,omitempty"`
	Session string    `json:"session,omitempty"`
	Kind    string    `json:"kind"`
	Paths   []string  `json:"paths"` // slash paths below the root
	Before  []Image   `json:"before"`
	After   []Image   `json:"after"`
	// NotUndoable says why the change cannot be undone ("" when it can).
	NotUndoable string `json:"not_undoable,omitempty"`
	Aborted     bool   `json:"aborted,omitempty"` // the change failed after it was journaled
	// Meta: only mode or owner changed; the content was not kept.
	Meta bool `json:"meta,omitempty"`
}

// Undoable reports whether the entry can be undone.
func (e *Entry) Undoable() bool { return e.NotUndoable == "" && !e.Aborted }

// Change is one path a change touches and what it will hold afterwards:
// After nil with Gone false means "not known" (a directory move, say).
type Change struct {
	Path  *sandbox.Path
	After []byte        // the new content of a file
	Gone  bool          // the path will not exist afterwards
	Same  *sandbox.Path // the path will hold what this one holds now (move, copy)
	Dir   bool          // the path will be a (new, empty) directory: mkdir
	Meta  bool          // only its mode or owner will change: chmod, chown
}

type actorKey struct{}

type actor struct{ tool, session string }

// WithActor marks ctx with the tool and session a change is made for. A
// session without an id (stdio has none) is named after this process, so
// "undo this session" still means something.
func WithActor(ctx context.Context, tool, session string) context.Context {
	if session == "" {
		session = processSession
	}
	return context.WithValue(ctx, actorKey{}, actor{tool, session})
}

// processSession names the session of a server without session ids.
var processSession = fmt.Sprintf("pid%d-%s", os.Getpid(), strconv.FormatInt(time.Now().Unix(), 36))

func actorOf(ctx context.Context) actor {
	if ctx == nil {
		return actor{}
	}
	a, _ := ctx.Value(actorKey{}).(actor)
	return a
}

// Set is the journals of all roots, opened as first needed.
type Set struct {
	cfg    Config
	mu     sync.Mutex
	stores map[string]*Store
}

var (
	activeMu sync.RWMutex
	active   *Set
)

// Use makes s the journal every change goes through (nil: none).
func Use(s *Set) {
	activeMu.Lock()
	active = s
	activeMu.Unlock()
}

// Active returns the journal in use, or nil.
func Active() *Set {
	activeMu.RLock()
	defer activeMu.RUnlock()
	return active
}

// New returns a Set over cfg; the base directory is made (0700) when a
// journal is first written.
func New(cfg Config) *Set {
	if cfg.MaxSize <= 0 {
		cfg.MaxSize = DefaultSize
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = DefaultAge
	}
	return &Set{cfg: cfg, stores: map[string]*Store{}}
}

// CheckRoots refuses a journal directory inside one of the roots: a tool
// could then read or rewrite it.
func (s *Set) CheckRoots(roots []string) error {
	dir := realish(s.cfg.Dir)
	for _, r := range roots {
		rr := realish(r)
		if dir == rr || strings.HasPrefix(dir, rr+string(filepath.Separator)) {
			return fmt.Errorf("%w: %s is inside %s, where tools could reach it; set XDG_STATE_HOME to a directory outside it, or pass --journal off", ErrInside, s.cfg.Dir, r)
		}
	}
	return nil
}

// realish resolves the longest existing prefix of p.
func realish(p string) string {
	p = filepath.Clean(p)
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// Store returns the journal of the root at the real path root.
func (s *Set) Store(root string) (*Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.stores[root]; st != nil {
		return st, nil
	}
	if err := s.CheckRoots([]string{root}); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(s.cfg.Dir, hex.EncodeToString(sum[:8]))
	st, err := openStore(dir, root, s.cfg)
	if err != nil {
		return nil, err
	}
	s.stores[root] = st
	return st, nil
}

// StoreFor returns the journal of the root p lies in; a name through a
// link out of the root is refused as the file tools refuse it, though
// only its root is used.
func (s *Set) StoreFor(p *sandbox.Path) (*Store, error) {
	if _, err := p.Target(); err != nil && fault.KindOf(err) != fault.NotFound {
		return nil, err
	}
	return s.Store(p.Root.Path)
}

// Store is the journal of one root.
type Store struct {
	dir, root string
	cfg       Config
	fs        *os.Root // the journal's directory: all its I/O goes through it
	mu        sync.Mutex
	lastID    int64
	size      int64     // log and blobs, bytes
	first     time.Time // the oldest entry's time, once read (zero: not known)
}

func openStore(dir, root string, cfg Config) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "blobs"), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the change journal %s: %v; pass --journal off to run without it", dir, err)
	}
	os.Chmod(cfg.Dir, 0o700) // MkdirAll leaves an existing one as it was
	fsys, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot open the change journal %s: %v; pass --journal off to run without it", dir, err)
	}
	fsys.Chmod(".", 0o700)
	fsys.WriteFile("root", []byte(root+"\n"), 0o600)
	st := &Store{dir: dir, root: root, cfg: cfg, fs: fsys}
	st.cleanTemps()
	st.size = st.measure()
	return st, nil
}

// Root is the real path of the root this journal is for.
func (st *Store) Root() string { return st.root }

const logName = "log"

func blobPath(h string) string { return "blobs/" + h }

// blobSizes lists the stored blobs and their sizes.
func (st *Store) blobSizes() map[string]int64 {
	out := map[string]int64{}
	d, err := st.fs.Open("blobs")
	if err != nil {
		return out
	}
	defer d.Close()
	ents, _ := d.ReadDir(-1)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && !strings.HasPrefix(e.Name(), ".") {
			out[e.Name()] = fi.Size()
		}
	}
	return out
}

// cleanTemps removes the temporary files a killed fsmcp left (an hour
// old: younger ones may be another server's, being written).
func (st *Store) cleanTemps() {
	for _, dir := range []string{".", "blobs"} {
		d, err := st.fs.Open(dir)
		if err != nil {
			continue
		}
		ents, _ := d.ReadDir(-1)
		d.Close()
		for _, e := range ents {
			fi, err := e.Info()
			if err == nil && strings.HasPrefix(e.Name(), ".tmp-") && time.Since(fi.ModTime()) > time.Hour {
				st.fs.Remove(dir + "/" + e.Name())
			}
		}
	}
}

// tempName is a fresh hidden name in dir of the journal.
func tempName(dir string) string {
	var b [8]byte
	rand.Read(b[:])
	return dir + "/.tmp-" + hex.EncodeToString(b[:])
}

func (st *Store) measure() int64 {
	var n int64
	if fi, err := st.fs.Stat(logName); err == nil {
		n += fi.Size()
	}
	for _, sz := range st.blobSizes() {
		n += sz
	}
	return n
}

// lock takes the journal's cross-process lock (st.mu held): appends and
// the log's rewrite by prune must not interleave across processes.
func (st *Store) lock() (unlock func(), err error) {
	f, err := st.fs.OpenFile("lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
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

// Mark is a journaled change about to land; Done records its outcome.
type Mark struct {
	st *Store
	id string
}

// Done records that the change failed (err != nil), so undo skips it.
func (m *Mark) Done(err error) {
	if m == nil || err == nil {
		return
	}
	m.st.mu.Lock()
	defer m.st.mu.Unlock()
	if unlock, err := m.st.lock(); err == nil {
		m.st.appendLine(map[string]any{"abort": m.id})
		unlock()
	}
}

// Before journals a change of kind made through ctx's tool, before it
// lands. All changes must lie in one root. A nil Set journals nothing.
func (s *Set) Before(ctx context.Context, kind string, changes ...Change) (*Mark, error) {
	if s == nil || len(changes) == 0 || ctx.Value(quietKey{}) != nil {
		return nil, nil
	}
	st, err := s.Store(changes[0].Path.Root.Path)
	if errors.Is(err, ErrInside) && !s.cfg.Strict {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	a := actorOf(ctx)
	return st.record(kind, a.tool, a.session, changes)
}

type quietKey struct{}

// Journaled marks ctx as belonging to a change already journaled (an
// undo), so the writers it calls do not journal their part again.
func Journaled(ctx context.Context) context.Context {
	return context.WithValue(ctx, quietKey{}, true)
}

// Restore writes data as p's whole content the way every writer does
// (under files.Modify's locks, so an undo racing an edit loses neither):
// package files sets it, which this package cannot import.
var Restore func(ctx context.Context, p *sandbox.Path, data []byte) error

// Before journals through the active Set (see Set.Before).
func Before(ctx context.Context, kind string, changes ...Change) (*Mark, error) {
	return Active().Before(ctx, kind, changes...)
}

func (st *Store) record(kind, tool, session string, changes []Change) (*Mark, error) {
	e := &Entry{Time: time.Now().UTC(), Tool: tool, Session: session, Kind: kind}
	for _, c := range changes {
		if c.Path.Root.Path != st.root {
			// A change across roots (a move): its other half is in the
			// other root's journal.
			if e.NotUndoable == "" {
				e.NotUndoable = "it spans two allowed directories"
			}
			continue
		}
		var before Image
		var why string
		if c.Meta {
			before, why = st.stat(c.Path)
		} else {
			before, why = st.image(c.Path, true)
		}
		// A directory is restored whole when only its mode or owner
		// changes, or when it is made or removed empty.
		if before.Dir && (c.Meta || c.Dir || c.Gone && emptyDir(c.Path)) {
			why = ""
		}
		if why != "" && e.NotUndoable == "" {
			e.NotUndoable = why
		}
		var after Image
		switch {
		case c.Meta:
			after, e.Meta = before, true
		case c.Dir:
			after = Image{Exists: true, Dir: true, Mode: fs.ModeDir | 0o755}
		case c.Gone:
		case c.Same != nil:
			after, _ = st.image(c.Same, false)
		case c.After != nil || !c.Gone:
			sum := sha256.Sum256(c.After)
			after = Image{Exists: true, Hash: hex.EncodeToString(sum[:]), Size: int64(len(c.After)), Mode: before.Mode}
			if !before.Exists {
				after.Mode = 0o644
			}
		}
		e.Paths = append(e.Paths, c.Path.Rel)
		e.Before = append(e.Before, before)
		e.After = append(e.After, after)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	unlock, err := st.lock()
	if err != nil {
		return nil, fmt.Errorf("cannot journal the change of %s, so it was not made: %v", filepath.Join(st.root, filepath.FromSlash(e.Paths[0])), err)
	}
	defer unlock()
	e.ID = st.nextID()
	if err := st.appendLine(e); err != nil {
		return nil, fmt.Errorf("cannot journal the change of %s, so it was not made: %v", filepath.Join(st.root, filepath.FromSlash(e.Paths[0])), err)
	}
	st.prune(e.ID)
	return &Mark{st: st, id: e.ID}, nil
}

// emptyDir reports whether p is a directory with nothing in it.
func emptyDir(p *sandbox.Path) bool {
	es, err := p.ReadDir()
	return err == nil && len(es) == 0
}

// stat reads p's state without its content: what a mode or owner change
// needs to be undone.
func (st *Store) stat(p *sandbox.Path) (Image, string) {
	fi, err := p.Stat()
	if errors.Is(err, fs.ErrNotExist) {
		return Image{}, ""
	}
	if err != nil {
		return Image{}, "its state could not be read"
	}
	return Image{Exists: true, Dir: fi.IsDir(), Mode: fi.Mode(), MTime: fi.ModTime(), Size: fi.Size(), Owner: owner(fi)}, ""
}

// image reads p's state; keep stores a regular file's content. why says
// what keeps the state from being restored.
func (st *Store) image(p *sandbox.Path, keep bool) (Image, string) {
	fi, err := p.Lstat()
	if errors.Is(err, fs.ErrNotExist) {
		return Image{}, ""
	}
	if err != nil {
		return Image{}, "its state could not be read"
	}
	im := Image{Exists: true, Mode: fi.Mode(), MTime: fi.ModTime(), Size: fi.Size(), Owner: owner(fi)}
	switch {
	case fi.IsDir():
		im.Dir, im.Size = true, 0
		return im, "it concerns a directory, whose contents are not kept"
	case !fi.Mode().IsRegular():
		return im, "it concerns a " + kindOf(fi.Mode()) + ", which is not kept"
	}
	if keep && fi.Size() > st.cfg.MaxSize {
		return im, fmt.Sprintf("the old content (%d bytes) is larger than the whole journal (--journal-size %d)", fi.Size(), st.cfg.MaxSize)
	}
	// The content is streamed through the hash (and into its blob), never
	// held: the writer that called already holds the old and new contents,
	// and a third copy here tripled an edit's peak memory.
	f, err := p.Open()
	if err != nil {
		return im, "its old content could not be read"
	}
	defer f.Close()
	if ofi, err := f.Stat(); err != nil || !ofi.Mode().IsRegular() {
		return im, "its old content could not be read"
	}
	h, n, err := st.streamBlob(io.LimitReader(f, st.cfg.MaxSize+1), keep)
	switch {
	case n > st.cfg.MaxSize:
		return im, fmt.Sprintf("the old content (over %d bytes) is larger than the whole journal (--journal-size %d)", st.cfg.MaxSize, st.cfg.MaxSize)
	case err != nil && keep:
		return im, "its old content could not be kept: " + err.Error()
	case err != nil:
		return im, "its old content could not be read"
	}
	im.Hash, im.Size, im.Kept = h, n, keep
	return im, ""
}

// streamBlob hashes what r yields and, with keep, stores it compressed under
// its hash, once; the content passes through in small buffers.
func (st *Store) streamBlob(r io.Reader, keep bool) (hash string, n int64, err error) {
	sum := sha256.New()
	if !keep {
		n, err = io.Copy(sum, r)
		return hex.EncodeToString(sum.Sum(nil)), n, err
	}
	name := tempName("blobs")
	tmp, err := st.fs.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", 0, err
	}
	defer st.fs.Remove(name) // gone after the rename, or litter on failure
	defer tmp.Close()
	zw, _ := flate.NewWriter(tmp, flate.BestSpeed)
	if n, err = io.Copy(zw, io.TeeReader(r, sum)); err != nil {
		return "", n, err
	}
	hash = hex.EncodeToString(sum.Sum(nil))
	if n > st.cfg.MaxSize {
		return hash, n, nil // too large to keep: the caller says so
	}
	if _, err := st.fs.Stat(blobPath(hash)); err == nil {
		return hash, n, nil // kept already
	}
	if err := zw.Close(); err != nil {
		return "", n, err
	}
	if err := tmp.Sync(); err != nil {
		return "", n, err
	}
	fi, _ := tmp.Stat()
	if err := tmp.Close(); err != nil { // before the rename, which Windows needs
		return "", n, err
	}
	if err := st.fs.Rename(name, blobPath(hash)); err != nil {
		return "", n, err
	}
	if fi != nil {
		st.mu.Lock()
		st.size += fi.Size()
		st.mu.Unlock()
	}
	return hash, n, nil
}

func kindOf(m fs.FileMode) string {
	if m&fs.ModeSymlink != 0 {
		return "symlink"
	}
	return "special file"
}

// blob returns the content stored under h.
func (st *Store) blob(h string) ([]byte, error) {
	f, err := st.fs.Open(blobPath(h))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(flate.NewReader(f), st.cfg.MaxSize+1))
}

// appendLine appends v as one JSON line and flushes it to disk; st.mu held.
func (st *Store) appendLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := st.fs.OpenFile(logName, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	st.size += int64(len(b) + 1)
	return f.Close()
}

// Entries reads the log, oldest first, with aborts applied. A torn last
// line (a crash mid-append) is skipped.
func (st *Store) Entries() ([]*Entry, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.entries()
}

func (st *Store) entries() ([]*Entry, error) {
	f, err := st.fs.Open(logName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*Entry
	byID := map[string]*Entry{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte(`{"abort":`)) {
			var a struct{ Abort string }
			if json.Unmarshal(line, &a) == nil && byID[a.Abort] != nil {
				byID[a.Abort].Aborted = true
			}
			continue
		}
		e := new(Entry)
		if json.Unmarshal(line, e) != nil || e.ID == "" {
			continue
		}
		out = append(out, e)
		byID[e.ID] = e
	}
	return out, sc.Err()
}

// prune drops the oldest entries while the journal is over its size or
// they are over its age, then the blobs no entry refers to; keep is the
// entry just written, which stays (marked not undoable if its own blobs
// had to go). st.mu held.
func (st *Store) prune(keep string) {
	oldest := time.Now().Add(-st.cfg.MaxAge)
	// The log is read only when a bound may be crossed: over the size, or
	// its first entry (remembered) past the age.
	if st.size <= st.cfg.MaxSize && !st.first.IsZero() && !st.first.Before(oldest) {
		return
	}
	es, err := st.entries()
	if err != nil || len(es) == 0 {
		return
	}
	st.first = es[0].Time
	if st.size <= st.cfg.MaxSize && !es[0].Time.Before(oldest) {
		return
	}
	blobSize := st.blobSizes()
	refs := map[string]int{}
	for _, e := range es {
		for _, im := range e.Before {
			if im.Kept {
				refs[im.Hash]++
			}
		}
	}
	size := st.size
	i := 0
	for ; i < len(es) && es[i].ID != keep && (size > st.cfg.MaxSize || es[i].Time.Before(oldest)); i++ {
		b, _ := json.Marshal(es[i])
		size -= int64(len(b) + 1)
		for _, im := range es[i].Before {
			if im.Kept {
				if refs[im.Hash]--; refs[im.Hash] == 0 {
					size -= blobSize[im.Hash]
				}
			}
		}
	}
	rest := es[i:]
	if size > st.cfg.MaxSize && len(rest) > 0 {
		// Only the new entry is left and it does not fit: it stays, but
		// without its content.
		for _, e := range rest {
			for j := range e.Before {
				if e.Before[j].Kept {
					refs[e.Before[j].Hash]--
					e.Before[j].Kept = false
				}
			}
			if e.NotUndoable == "" {
				e.NotUndoable = "its old content did not fit in the journal (--journal-size)"
			}
		}
	}
	if err := st.rewrite(rest); err != nil {
		return
	}
	st.first = time.Time{}
	if len(rest) > 0 {
		st.first = rest[0].Time
	}
	for h := range blobSize {
		if refs[h] <= 0 {
			st.fs.Remove(blobPath(h))
		}
	}
	st.size = st.measure()
}

// rewrite replaces the log by es, atomically.
func (st *Store) rewrite(es []*Entry) error {
	name := tempName(".")
	tmp, err := st.fs.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer st.fs.Remove(name)
	w := bufio.NewWriter(tmp)
	for _, e := range es {
		b, _ := json.Marshal(e)
		w.Write(append(b, '\n'))
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return st.fs.Rename(name, logName)
}

// sortNewestFirst orders entries newest first.
func sortNewestFirst(es []*Entry) {
	sort.SliceStable(es, func(i, j int) bool { return es[i].ID > es[j].ID })
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Dir is the journal's directory.
func (st *Store) Dir() string { return st.dir }
