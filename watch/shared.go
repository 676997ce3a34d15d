package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// One inotify instance serves the whole process: each inotify_init costs
// one of the user's fs.inotify.max_user_instances (128 by default, shared
// by every program the user runs), so a watcher per subscription would
// let a client starve the whole account. The hub owns the one
// fsnotify.Watcher, counts who watches each directory, and hands each
// event to the watchers of the directory it happened in (or of the
// directory itself). It closes when its last watcher does.

// feedBuffer is how many events a watcher may lag behind before its
// events are dropped (and an error says so) rather than stall the others.
const feedBuffer = 4096

// errLagging is reported to a watcher whose events were dropped.
var errLagging = errors.New("some changes were not reported: events arrived faster than they were handled")

type hub struct {
	fsw   *fsnotify.Watcher
	refs  map[string]map[*feed]bool // directory -> feeds watching it
	feeds map[*feed]bool
}

// The hub is the process's, deliberately: inotify instances and watches
// are a per-user budget (fs.inotify.max_user_instances, often 128), so
// every watcher of every server and session in one fsmcp shares one.
var (
	hubMu  sync.Mutex
	theHub *hub
)

// feed is one watcher's view of the shared inotify instance, with the
// fsnotify.Watcher methods the watcher uses.
type feed struct {
	Events chan fsnotify.Event
	Errors chan error
	dirs   map[string]bool // guarded by hubMu
	closed bool            // guarded by hubMu
	h      *hub
}

// newFeed joins the process's inotify instance, starting it if needed.
func newFeed() (*feed, error) {
	hubMu.Lock()
	defer hubMu.Unlock()
	if theHub == nil {
		fsw, err := fsnotify.NewWatcher()
		if err != nil {
			return nil, err
		}
		theHub = &hub{fsw: fsw, refs: map[string]map[*feed]bool{}, feeds: map[*feed]bool{}}
		go theHub.dispatch()
	}
	f := &feed{Events: make(chan fsnotify.Event, feedBuffer), Errors: make(chan error, 1), dirs: map[string]bool{}, h: theHub}
	theHub.feeds[f] = true
	return f, nil
}

// Add watches dir for this feed. It always asks fsnotify (idempotent), as
// the kernel drops a watch by itself when its directory goes.
func (f *feed) Add(dir string) error {
	hubMu.Lock()
	defer hubMu.Unlock()
	if f.closed {
		return fsnotify.ErrClosed
	}
	if err := f.h.fsw.Add(dir); err != nil {
		return err
	}
	if f.h.refs[dir] == nil {
		f.h.refs[dir] = map[*feed]bool{}
	}
	f.h.refs[dir][f] = true
	f.dirs[dir] = true
	return nil
}

// AddSame watches dir for this feed only if the directory the kernel
// watches is h's (the directory opened through the root): inotify adds by
// path, and a parent swapped for a link out while it resolves dir would
// watch a directory outside under dir's name. ok is false, and nothing is
// watched, when they differ. The check is exact where /proc is: the
// kernel keys watches by inode, so adding h as /proc/self/fd/N right
// after dir lands on dir's watch when they are one directory, and
// registers a new path only when they are not — unless h's directory is
// already watched under another name (renamed since), so the name check
// below is made as well. Without /proc, dir must resolve to itself and to
// h's directory after the add (a narrow race remains there).
func (f *feed) AddSame(dir string, h *os.File) (ok bool, err error) {
	hubMu.Lock()
	defer hubMu.Unlock()
	if f.closed {
		return false, fsnotify.ErrClosed
	}
	if err := f.h.fsw.Add(dir); err != nil {
		return false, err
	}
	probe := "/proc/self/fd/" + strconv.Itoa(int(h.Fd()))
	if err := f.h.fsw.Add(probe); err == nil && safeRemove(f.h.fsw, probe) == nil {
		// The probe made a watch of its own: dir's is another
		// directory's. Drop it for every feed, as it may have replaced
		// the one they verified.
		safeRemove(f.h.fsw, dir)
		return false, nil
	}
	if !sameDirByName(dir, h) {
		if len(f.h.refs[dir]) == 0 {
			safeRemove(f.h.fsw, dir)
		}
		return false, nil
	}
	if f.h.refs[dir] == nil {
		f.h.refs[dir] = map[*feed]bool{}
	}
	f.h.refs[dir][f] = true
	f.dirs[dir] = true
	return true, nil
}

// sameDirByName reports whether dir resolves to itself, and to h's
// directory.
func sameDirByName(dir string, h *os.File) bool {
	if r, err := filepath.EvalSymlinks(dir); err != nil || r != dir {
		return false
	}
	a, err := os.Stat(dir)
	if err != nil {
		return false
	}
	b, err := h.Stat()
	return err == nil && os.SameFile(a, b)
}

// Remove stops this feed's watch on dir; the inotify watch goes when no
// feed has the directory any more.
func (f *feed) Remove(dir string) error {
	hubMu.Lock()
	defer hubMu.Unlock()
	return f.removeLocked(dir)
}

func (f *feed) removeLocked(dir string) error {
	if !f.dirs[dir] {
		return nil
	}
	delete(f.dirs, dir)
	delete(f.h.refs[dir], f)
	if len(f.h.refs[dir]) == 0 {
		delete(f.h.refs, dir)
		return safeRemove(f.h.fsw, dir)
	}
	return nil
}

// safeRemove is fsw.Remove, with fsnotify's panic turned into an error.
// fsnotify (v1.10.1) keys watches by path but the kernel by inode: when
// one directory was added under two paths (a directory swapped with a
// symlink to it, as a hostile tree does), removing the second path leaves
// the first pointing at a deleted entry, and removing that one
// dereferences nil. Found by the swap race test.
func safeRemove(fsw *fsnotify.Watcher, dir string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("stop watching %s: %v", dir, r)
		}
	}()
	return fsw.Remove(dir)
}

// Close leaves the hub, closing the inotify instance with its last feed
// (outside the lock: fsnotify's Close waits for its reader, which may be
// handing an event to dispatch, which takes the lock). The feed's channels
// are not closed: the watcher stops on its own signal.
func (f *feed) Close() error {
	hubMu.Lock()
	if f.closed {
		hubMu.Unlock()
		return nil
	}
	f.closed = true
	for d := range f.dirs {
		f.removeLocked(d)
	}
	delete(f.h.feeds, f)
	last := len(f.h.feeds) == 0 && theHub == f.h
	if last {
		theHub = nil
	}
	hubMu.Unlock()
	if last {
		return f.h.fsw.Close()
	}
	return nil
}

// dispatch hands each event to the feeds watching its directory (or the
// directory itself), never blocking on a slow one.
func (h *hub) dispatch() {
	for {
		select {
		case ev, ok := <-h.fsw.Events:
			if !ok {
				return
			}
			hubMu.Lock()
			sent := map[*feed]bool{}
			for _, d := range []string{filepath.Dir(ev.Name), ev.Name} {
				for f := range h.refs[d] {
					if sent[f] {
						continue
					}
					sent[f] = true
					select {
					case f.Events <- ev:
					default:
						f.report(errLagging)
					}
				}
			}
			hubMu.Unlock()
		case err, ok := <-h.fsw.Errors:
			if !ok {
				return
			}
			hubMu.Lock()
			for f := range h.feeds {
				f.report(err)
			}
			hubMu.Unlock()
		}
	}
}

// report passes err on unless one is already waiting.
func (f *feed) report(err error) {
	select {
	case f.Errors <- err:
	default:
	}
}
