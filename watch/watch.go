// Package watch follows changes under a directory tree with fsnotify
// (inotify on Linux): recursively, with new subdirectories picked up as
// they appear, glob filters, debouncing, and a bounded queue of events for
// clients that poll.
//
// Containment: inotify watches are added by path, not through os.Root. A
// directory is only watched when the walk (which goes through the root and
// never follows symlinks) found it as a real directory, and when its path
// still resolves to itself right after the watch is added; events are
// reported only for paths inside the watched tree. What a watch can reveal
// is names and kinds of changes, never content.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fsnotify/fsnotify"

	"github.com/fsmcp/fsmcp/backend/ignore"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Defaults, used where Options leaves a field zero.
const (
	DefaultDebounce = 100 * time.Millisecond // quiet time before a batch is delivered
	maxLatency      = time.Second            // a busy tree still delivers this often
	DefaultMaxQueue = 1000                   // events kept for Poll
	DefaultMaxDirs  = 10000                  // directories one watcher may watch
	DefaultMaxDepth = 64                     // levels below the watched directory
)

// Op is the kind of a change.
type Op string

const (
	Created  Op = "created"
	Modified Op = "modified"
	Removed  Op = "removed"
	Renamed  Op = "renamed" // moved away; the new name arrives as created
	Attrib   Op = "attributes"
)

// Event is one change, after debouncing.
type Event struct {
	Path  string // absolute, as the client spelled the watched directory
	Op    Op
	IsDir bool
	Time  time.Time
}

// Options shape a watcher.
type Options struct {
	// Patterns are doublestar globs; an event is kept when one matches the
	// changed entry's name or its path relative to the watched directory.
	// None: every event is kept.
	Patterns []string
	Debounce time.Duration
	MaxQueue int
	MaxDirs  int
	// Flat watches the directory itself, not its subdirectories.
	Flat bool
	// MaxDepth bounds how many levels below the directory are watched;
	// deeper ones are skipped with a note (Notes).
	MaxDepth int
	// Context bounds the setup in New (the call's context, with its
	// --timeout); nil: no bound.
	Context context.Context
	// OnEvents, if set, receives each debounced batch (from the watcher's
	// goroutine; it should not block for long).
	OnEvents func([]Event)
}

// ValidPatterns checks glob patterns.
func ValidPatterns(ps []string) error {
	for _, p := range ps {
		if !doublestar.ValidatePattern(p) {
			return fmt.Errorf("pattern %q is not a valid glob", p)
		}
		if err := ignore.CheckGlob(p); err != nil {
			return err
		}
	}
	return nil
}

// Watcher watches one directory tree.
type Watcher struct {
	dir  *sandbox.Path // the watched directory as the client named it
	real *sandbox.Path // the same, with a final symlink resolved
	base string        // real's absolute path on disk
	opt  Options
	fsw  *feed // this watcher's share of the process's one inotify instance
	done chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	watched map[string]bool // directories on disk being watched
	queue   []Event
	dropped int
	err     error // last watch error, reported by Poll
	notes   []string
	noted   map[string]bool
}

// ErrTooManyDirs says a tree is too big to watch.
var ErrTooManyDirs = errors.New("too many directories to watch")

// New starts watching dir and everything below it.
func New(dir *sandbox.Path, opt Options) (*Watcher, error) {
	if err := ValidPatterns(opt.Patterns); err != nil {
		return nil, err
	}
	if err := dir.StatDir(); err != nil {
		return nil, err
	}
	real, err := dir.Target()
	if err != nil {
		return nil, err
	}
	if opt.Debounce <= 0 {
		opt.Debounce = DefaultDebounce
	}
	if opt.MaxQueue <= 0 {
		opt.MaxQueue = DefaultMaxQueue
	}
	if opt.MaxDirs <= 0 {
		opt.MaxDirs = DefaultMaxDirs
	}
	if opt.MaxDepth <= 0 {
		opt.MaxDepth = DefaultMaxDepth
	}
	if opt.Context == nil {
		opt.Context = context.Background()
	}
	fsw, err := newFeed()
	if err != nil {
		if errors.Is(err, syscall.EMFILE) {
			return nil, fmt.Errorf("cannot watch %s: the system's limit on inotify instances (fs.inotify.max_user_instances) is reached; stop other watches", dir.Abs)
		}
		return nil, fmt.Errorf("cannot watch %s: %v", dir.Abs, err)
	}
	w := &Watcher{dir: dir, real: real, base: filepath.Join(real.Root.Path, filepath.FromSlash(real.Rel)),
		opt: opt, fsw: fsw, done: make(chan struct{}), watched: map[string]bool{}}
	if _, err := w.addTree(opt.Context, real, 0, nil); err != nil {
		fsw.Close()
		if errors.Is(err, ErrTooManyDirs) {
			return nil, fmt.Errorf("%s has more than %d directories; watch a smaller directory", dir.Abs, opt.MaxDirs)
		}
		if opt.Context.Err() != nil {
			return nil, fmt.Errorf("watching %s was not set up within the call's time limit; watch a smaller directory", dir.Abs)
		}
		return nil, err
	}
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// Notes says what the watch skipped (too deep, or not watchable), one
// sentence each.
func (w *Watcher) Notes() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.notes...)
}

// note records a skip once per kind.
func (w *Watcher) note(kind, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.noted == nil {
		w.noted = map[string]bool{}
	}
	if !w.noted[kind] && len(w.notes) < 10 {
		w.noted[kind] = true
		w.notes = append(w.notes, text)
	}
}

// Dirs is the number of directories being watched.
func (w *Watcher) Dirs() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.watched)
}

// Close stops the watcher.
func (w *Watcher) Close() error {
	select {
	case <-w.done:
		return nil
	default:
	}
	close(w.done)
	err := w.fsw.Close()
	w.wg.Wait()
	return err
}

// Poll returns the queued events and clears the queue; dropped counts the
// events that did not fit in it since the last Poll.
func (w *Watcher) Poll() (events []Event, dropped int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	events, dropped, err = w.queue, w.dropped, w.err
	w.queue, w.dropped, w.err = nil, 0, nil
	return events, dropped, err
}

// addTree watches d, depth levels below the watched directory, and the
// directories below it (never through a symlink), down to MaxDepth. With
// found non-nil, the entries met on the way are reported to it: they may
// have appeared before their directory was watched. A directory that
// cannot be watched (a name too long, no permission) is skipped with a
// note; running out of inotify watches or instances, too many
// directories or ctx ending stops it with an error.
func (w *Watcher) addTree(ctx context.Context, d *sandbox.Path, depth int, found func(*sandbox.Path, bool)) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	w.mu.Lock()
	if len(w.watched) >= w.opt.MaxDirs {
		w.mu.Unlock()
		return 0, ErrTooManyDirs
	}
	w.mu.Unlock()
	real := filepath.Join(d.Root.Path, filepath.FromSlash(d.Rel))
	// The directory is opened through the root (a link out is refused),
	// and watched only if the kernel's watch is on that very directory.
	dirf, err := d.Open()
	if err != nil {
		return 0, nil // gone, or swapped for a link out: not watched
	}
	ents, ok, err := w.watchOpen(real, dirf)
	dirf.Close()
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return 0, fmt.Errorf("cannot watch %s: the system's limit on inotify watches (fs.inotify.max_user_watches) is reached; watch a smaller directory", w.clientPath(real))
		}
		if errors.Is(err, syscall.EMFILE) {
			return 0, fmt.Errorf("cannot watch %s: the system's limit on inotify instances (fs.inotify.max_user_instances) is reached; stop other watches", w.clientPath(real))
		}
		w.note("unwatchable", fmt.Sprintf("(some directories could not be watched and are skipped, e.g. %s: %v)", w.clientPath(real), err))
		return 0, nil
	}
	if !ok {
		return 0, nil
	}
	w.mu.Lock()
	w.watched[real] = true
	w.mu.Unlock()
	n := 1
	for _, de := range ents {
		c := d.Join(de.Name())
		if found != nil {
			found(c, de.IsDir())
		}
		if !de.IsDir() || ignore.AlwaysLeftOut(de.Name()) { // .git churns and is never of interest
			continue
		}
		if depth+1 > w.opt.MaxDepth {
			w.note("depth", fmt.Sprintf("(directories more than %d levels below %s are not watched)", w.opt.MaxDepth, w.dir.Abs))
			continue
		}
		k, err := w.addTree(ctx, c, depth+1, found)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// watchOpen watches real if it is dirf's directory (feed.AddSame) and,
// unless Flat, lists dirf (sorted by name). ok is false when it was not
// watched.
func (w *Watcher) watchOpen(real string, dirf *os.File) (ents []fs.DirEntry, ok bool, err error) {
	if fi, err := dirf.Stat(); err != nil || !fi.IsDir() {
		return nil, false, nil
	}
	if ok, err = w.fsw.AddSame(real, dirf); !ok || err != nil || w.opt.Flat {
		return nil, ok, err
	}
	ents, _ = dirf.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, true, nil
}

// verified reports whether an event's path is in (or is) a directory
// whose watch was checked to be the one inside the tree.
func (w *Watcher) verified(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.watched[filepath.Dir(name)] || w.watched[name]
}

// clientPath maps a path on disk below the watched tree to the client's
// spelling.
func (w *Watcher) clientPath(real string) string {
	rel, err := filepath.Rel(w.base, real)
	if err != nil || rel == "." {
		return w.dir.Abs
	}
	return filepath.Join(w.dir.Abs, rel)
}

// rel is a disk path's slash-separated path below the watched tree, or ok
// false when it is not below it.
func (w *Watcher) rel(real string) (string, bool) {
	rel, err := filepath.Rel(w.base, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func (w *Watcher) keep(rel string) bool {
	if len(w.opt.Patterns) == 0 {
		return true
	}
	name := path.Base(rel)
	for _, p := range w.opt.Patterns {
		if ok, _ := doublestar.Match(p, name); ok {
			return true
		}
		if ok, _ := doublestar.Match(p, rel); ok {
			return true
		}
	}
	return false
}

type pendingEvent struct {
	op    Op
	isDir bool
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	pending := map[string]pendingEvent{}
	var first time.Time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	add := func(rel string, op Op, isDir bool) {
		if !w.keep(rel) {
			return
		}
		if old, ok := pending[rel]; ok && old.op == Created && op == Modified {
			op = Created
		}
		pending[rel] = pendingEvent{op, isDir}
		if first.IsZero() {
			first = time.Now()
		}
		wait := w.opt.Debounce
		if left := maxLatency - time.Since(first); left < wait {
			wait = max(left, 0)
		}
		timer.Reset(wait)
	}
	for {
		select {
		case <-w.done:
			timer.Stop()
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			rel, ok := w.rel(ev.Name)
			if !ok || !w.verified(ev.Name) {
				continue
			}
			p := w.real.Join(rel)
			isDir := false
			if fi, err := p.Lstat(); err == nil {
				isDir = fi.IsDir()
			}
			switch {
			case ev.Has(fsnotify.Create):
				add(rel, Created, isDir)
				if isDir && !w.opt.Flat {
					// Watch the new directory, and report what was
					// created in it before the watch was in place.
					_, err := w.addTree(context.Background(), p, strings.Count(rel, "/")+1, func(c *sandbox.Path, d bool) {
						if r, ok := w.rel(filepath.Join(c.Root.Path, filepath.FromSlash(c.Rel))); ok {
							add(r, Created, d)
						}
					})
					if err != nil {
						w.setErr(err)
					}
				}
			case ev.Has(fsnotify.Write):
				add(rel, Modified, isDir)
			case ev.Has(fsnotify.Remove):
				add(rel, Removed, w.forget(ev.Name))
			case ev.Has(fsnotify.Rename):
				add(rel, Renamed, w.forget(ev.Name))
			case ev.Has(fsnotify.Chmod):
				add(rel, Attrib, isDir)
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.setErr(err)
		case <-timer.C:
			w.flush(pending)
			pending = map[string]pendingEvent{}
			first = time.Time{}
		}
	}
}

// forget drops a removed or renamed directory and those below it from the
// watched set (inotify drops their watches itself) and reports whether it
// was a watched directory.
func (w *Watcher) forget(real string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.watched[real] {
		return false
	}
	prefix := real + string(filepath.Separator)
	for d := range w.watched {
		if d == real || strings.HasPrefix(d, prefix) {
			delete(w.watched, d)
			w.fsw.Remove(d) // a renamed directory keeps its watch: drop it
		}
	}
	return true
}

func (w *Watcher) setErr(err error) {
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
}

func (w *Watcher) flush(pending map[string]pendingEvent) {
	if len(pending) == 0 {
		return
	}
	now := time.Now()
	rels := make([]string, 0, len(pending))
	for r := range pending {
		rels = append(rels, r)
	}
	slices.Sort(rels)
	batch := make([]Event, 0, len(rels))
	for _, r := range rels {
		p := pending[r]
		batch = append(batch, Event{Path: filepath.Join(w.dir.Abs, filepath.FromSlash(r)), Op: p.op, IsDir: p.isDir, Time: now})
	}
	w.mu.Lock()
	w.queue = append(w.queue, batch...)
	if over := len(w.queue) - w.opt.MaxQueue; over > 0 {
		w.queue = slices.Delete(w.queue, 0, over)
		w.dropped += over
	}
	w.mu.Unlock()
	if w.opt.OnEvents != nil {
		w.opt.OnEvents(batch)
	}
}
