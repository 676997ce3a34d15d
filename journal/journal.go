// Package journal keeps, before every change fsmcp makes in an allowed
// directory, what the change is about to replace, so the change can be
// undone: whole files and directory trees, modes (set-uid, set-gid and
// sticky bits included), owners, times, links, parents made on the way.
//
// One call of a tool, or one shell command, is one entry (a Step): the
// writers in package files, the catalog and the shell's supervisor report
// each path they are about to change (Keep, Gone, Meta, Moved, Take), the
// step records its state first, and when the call ends the step records
// what each path holds then, so an undo can tell whether it changed since.
//
// Entries live outside the roots, one journal per directory the user
// named (a narrowed root answers to the DIR it lies in), under the user's
// state directory, in segments of an append-only log: small contents
// inline in the log, larger ones packed beside it, and an object that is
// removed or replaced moved or hard-linked into the journal where it is
// on the same file system (as a trash would), else copied. The whole is
// bounded by the disk it really uses (--journal-size) and by age, oldest
// segments out first; one step keeps at most half the bound, so no one
// change pushes most of the history out.
package journal

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
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
	Dir     string        // the base directory; one subdirectory per DIR
	MaxSize int64         // bytes of disk, over all the journals one server writes
	MaxAge  time.Duration // entries older than this go
	// Strict (--journal on given) refuses to start when the journal
	// directory lies inside a root; otherwise the server runs without a
	// journal and says so at start.
	Strict bool
}

// ErrInside says the journal directory lies inside a root.
var ErrInside = errors.New("the change journal lies inside an allowed directory")

// DefaultDir is $XDG_STATE_HOME/fsmcp/journal, else
// ~/.local/state/fsmcp/journal; on Windows, where programs keep such
// state in %LOCALAPPDATA% (as os.UserCacheDir, where the index cache
// goes), %LOCALAPPDATA%\fsmcp\journal.
func DefaultDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "fsmcp", "journal"), nil
	}
	if runtime.GOOS == "windows" {
		if d := getenv("LOCALAPPDATA"); d != "" && filepath.IsAbs(d) {
			return filepath.Join(d, "fsmcp", "journal"), nil
		}
		return "", errors.New("cannot find a state directory for the change journal: %LOCALAPPDATA% is not set; set XDG_STATE_HOME or pass --journal off")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find a state directory for the change journal: %v; set XDG_STATE_HOME or pass --journal off", err)
	}
	return filepath.Join(home, ".local", "state", "fsmcp", "journal"), nil
}

// Attrs are what a restore puts back besides the content.
type Attrs struct {
	Mode         uint32 // Unix permission bits, 07777
	Owner        *[2]int
	ATime, MTime time.Time
	// Xattrs, where XattrsKept, are the extended attributes to put back
	// (xattr.Put); else they are left as they are.
	Xattrs     map[string][]byte
	XattrsKept bool
}

// Ops are the writers' own operations an undo uses, so that a restore
// takes the same locks and the same care as every change (package files
// implements them; this package cannot import it).
type Ops interface {
	// RestoreFile makes p a regular file holding size bytes from r, with
	// meta set on the new file before it takes p's name.
	RestoreFile(ctx context.Context, p *sandbox.Path, r io.Reader, size int64, attrs Attrs) error
	// SetMeta puts attrs back on the object p names, refusing a file with
	// more than one hard link (another name of it may lie outside).
	SetMeta(ctx context.Context, p *sandbox.Path, attrs Attrs) error
	// Move moves src to dst where a rename cannot (another root, another
	// file system); dst must not exist.
	Move(ctx context.Context, src, dst *sandbox.Path) error
}

// OwnerError says an owner was not put back (only root gives files
// away); the rest of the restore landed.
type OwnerError struct {
	Path     string
	UID, GID int
	Err      error
}

func (e *OwnerError) Error() string {
	return fmt.Sprintf("the owner of %s (uid %d, gid %d) was not restored: %v", e.Path, e.UID, e.GID, e.Err)
}

// Set is the journals of one server (or of one fsmcp history/undo run),
// opened as first needed.
type Set struct {
	cfg Config
	ops Ops
	key []byte // labels sessions without revealing their ids

	mu      sync.Mutex
	stores  map[string]*Store // by the DIR's real path
	confirm map[string]time.Time
	pins    map[*Store]map[int]int // segments an undo is reading
	// estimate is the journals' disk as last measured, plus what this
	// process wrote since (measured then).
	estimate int64
	measured time.Time

	flush  flusher    // ended steps' files, synced in batches
	lazyMu sync.Mutex // taken with a step's mu held, never the reverse
	lazy   map[*Step]bool
	realMu sync.Mutex // s.mu may be held when it is taken
	reals  map[string]realPath
	links  linkNames   // the names hard links gave files (linked.go)
	aging  *time.Timer // prunes by age while the server is quiet (prune.go)
	// hostSession is the session of the host that started this server
	// (over stdio, which has no session ids), labelled as its hooks
	// label it (HostSession).
	hostSession string
	// carriedTimes are directories' times before steps that changed
	// nothing (dirtimes.go).
	carriedTimes carriedTimes
	closed       bool
}

// New returns a Set over cfg; ops may be nil where nothing is undone.
// Directories are made (0700) when a journal is first written.
func New(cfg Config, ops Ops) *Set {
	if cfg.MaxSize <= 0 {
		cfg.MaxSize = DefaultSize
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = DefaultAge
	}
	key := make([]byte, 32)
	rand.Read(key)
	s := &Set{cfg: cfg, ops: ops, key: key, stores: map[string]*Store{}, confirm: map[string]time.Time{}}
	s.aging = time.AfterFunc(s.ageTick(), s.age)
	return s
}

// Close brings what the Set's steps wrote to disk now, rather than a
// moment later (flush.go), and closes the logs its stores keep open: at
// a server's shutdown and at the end of an fsmcp undo. A nil Set is
// fine.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	// Steps still open (a background process's) write their lazy
	// records now rather than on a timer that may not fire.
	s.lazyMu.Lock()
	steps := s.lazy
	s.lazy = nil
	s.lazyMu.Unlock()
	for st := range steps {
		st.mu.Lock()
		st.writePending()
		st.mu.Unlock()
	}
	s.flush.flush()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.aging.Stop()
	for _, st := range s.stores {
		st.mu.Lock()
		if st.log != nil && st.log.users == 0 {
			st.log.f.Close()
			st.log = nil
		}
		st.mu.Unlock()
	}
	return nil
}

// Config is the Set's configuration, bounds settled.
func (s *Set) Config() Config { return s.cfg }

// inside returns the root among roots that holds the journal directory,
// or "".
func (s *Set) inside(roots []string) string {
	dir := s.real(s.cfg.Dir)
	for _, r := range roots {
		rr := s.real(r)
		if _, ok := sandbox.Within(rr, dir); ok {
			return r
		}
	}
	return ""
}

// real is realish(p), remembered for a second: every step asks it of
// the journal directory and the roots (a stat of each of their parents)
// and they rarely move.
func (s *Set) real(p string) string {
	s.realMu.Lock()
	r, ok := s.reals[p]
	s.realMu.Unlock()
	if ok && time.Since(r.at) < time.Second {
		return r.path
	}
	rp := realish(p)
	s.realMu.Lock()
	if s.reals == nil || len(s.reals) > 64 {
		s.reals = map[string]realPath{}
	}
	s.reals[p] = realPath{rp, time.Now()}
	s.realMu.Unlock()
	return rp
}

type realPath struct {
	path string
	at   time.Time
}

// CheckRoots refuses a journal directory inside one of the roots: a tool
// could then read the journal or forge the log an undo trusts.
func (s *Set) CheckRoots(roots []string) error {
	if r := s.inside(roots); r != "" {
		return fmt.Errorf("%w: %s is inside %s, where tools could reach it; set XDG_STATE_HOME to a directory outside it, or pass --journal off", ErrInside, s.cfg.Dir, r)
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

// Label names a session in history without revealing its id (an HTTP
// session id is a credential): the client's name, when it gave one, and
// a short keyed hash of the id.
func (s *Set) Label(session, client string) string {
	if session == "" {
		session = s.hostSession
	}
	if session == "" {
		session = processSession
	}
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(session))
	sum := hex.EncodeToString(m.Sum(nil))[:8]
	var name strings.Builder
	for _, r := range client {
		if name.Len() >= 24 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			name.WriteRune(r)
		case r == ' ':
			name.WriteByte('-')
		}
	}
	if name.Len() == 0 {
		return "s-" + sum
	}
	return name.String() + "-" + sum
}

// processSession stands for the one session of a server without session
// ids (stdio).
var processSession = fmt.Sprintf("pid%d", os.Getpid())

// Store returns the journal of the DIR at the real path base.
func (s *Set) Store(base string) (*Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.stores[base]; st != nil {
		return st, nil
	}
	if err := s.CheckRoots([]string{base}); err != nil {
		return nil, err
	}
	st, err := openStore(s, storeDir(s.cfg.Dir, base), base)
	if err != nil {
		return nil, err
	}
	s.stores[base] = st
	return st, nil
}

// storeDir is the directory of base's journal.
func storeDir(dir, base string) string {
	sum := sha256.Sum256([]byte(base))
	return filepath.Join(dir, hex.EncodeToString(sum[:8]))
}

// Bases lists the DIRs that have a journal in the directory dir.
func Bases(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "root"))
		if err == nil && e.IsDir() && len(b) > 1 {
			out = append(out, strings.TrimSuffix(string(b), "\n"))
		}
	}
	return out
}

// StoreOf returns the journal of the DIR p lies in and p's slash path
// below that DIR. A name through a link out of the root is refused as
// the file tools refuse it (it might name the journal itself).
func (s *Set) StoreOf(p *sandbox.Path) (*Store, string, error) {
	if _, err := p.Target(); err != nil && fault.KindOf(err) != fault.NotFound {
		return nil, "", err
	}
	base, rel := p.Root.Base()
	st, err := s.Store(base)
	if err != nil {
		return nil, "", err
	}
	return st, path.Join(rel, p.Rel), nil
}

// labelKeyName is the file in the journal's directory that holds the
// key labels of hosts' sessions are made with: the hooks of one host
// session run as many processes, and each must label it alike.
const labelKeyName = "label-key"

// KeepLabels makes the Set label sessions with the journal's own key
// (made, 0600, on first use) rather than one of this process: fsmcp run
// and the hosts' hooks, one process per call of a session, label it
// alike across calls, and history shows which host session did what.
func (s *Set) KeepLabels() error {
	if err := os.MkdirAll(s.cfg.Dir, 0o700); err != nil {
		return err
	}
	p := filepath.Join(s.cfg.Dir, labelKeyName)
	key, err := os.ReadFile(p)
	if err == nil && len(key) == 32 {
		s.key = key
		return nil
	}
	key = make([]byte, 32)
	rand.Read(key)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another process made it first: its key is the one.
		if key, err = os.ReadFile(p); err == nil && len(key) == 32 {
			s.key = key
			return nil
		}
		return fmt.Errorf("the journal's label key %s is unreadable", p)
	}
	if err != nil {
		return err
	}
	_, err = f.Write(key)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		s.key = key
	}
	return err
}

// HostSession labels the sessionless calls of this server (stdio) with
// the session of the agent host that started it, with the journal's own
// key, as the host's hooks label its own tools' calls: fsmcp undo DIR
// --session LABEL then takes back the host session's every change,
// fsmcp's tools' among them.
func (s *Set) HostSession(id string) error {
	if err := s.KeepLabels(); err != nil {
		return err
	}
	s.hostSession = id
	return nil
}
