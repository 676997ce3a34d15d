//go:build linux

package index

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchMask is every change to a directory's entries or to a file's
// content or times that the index relies on.
const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE |
	unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

// fileMask is what a file's own watch reports: a write or a truncation
// through any of its names, and a change of its metadata, its link count
// included. A hard link made to the file from outside the root (or from a
// directory the walk leaves out) and a write through it reach no
// directory watch: the kernel reports both to watches of the file's
// parent through the name used, and to the inode's own.
const fileMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE

// watchBudget is the share of the user's fs.inotify.max_user_watches one
// Searcher's watchers may hold, all roots together: every watch they add,
// a directory's (an empty one's too) or a file's, comes out of it, and
// one that does not fit is not added. The user's other programs share
// that limit (an editor's file watching, fsmcp's own fs_watch, a second
// fsmcp on the same tree, which needs as many directory watches to
// follow it at all), so the share is half of it, less a little, unless
// Options.MaxWatches (--index-watches) says otherwise. Directory watches
// come first: a root's are reserved before its files take any, and a
// root whose directories do not fit is not followed at all (its narrowed
// searches walk the tree). A file that gets no watch is stat'ed by every
// search instead. Counting only the directories that held indexed files
// let a tree of empty directories take the user's every watch.
type watchBudget struct {
	once sync.Once
	max  int64        // set by New (Options.MaxWatches), else at first use
	used atomic.Int64 // watches held or reserved
}

// limit is the share, read from the kernel's limit the first time when
// none was set.
func (b *watchBudget) limit() int64 {
	b.once.Do(func() {
		if b.max > 0 {
			return
		}
		b.max = 4096 // the kernel's smallest default is 8192
		if v, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches"); err == nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64); err == nil && n > 0 {
				// Half, less a little: two servers' halves leave the
				// user's other programs room.
				b.max = n/2 - n/64
			}
		}
	})
	return b.max
}

// take takes n watches from the budget, if they fit.
func (b *watchBudget) take(n int64) bool {
	max := b.limit()
	if b.used.Add(n) > max {
		b.used.Add(-n)
		return false
	}
	return true
}

// give returns n watches to the budget.
func (b *watchBudget) give(n int64) { b.used.Add(-n) }

// watcher follows every directory of one root with inotify. inotify
// queues an event while the change's system call runs, so reading the
// queue dry before a search (sync) puts every change that returned
// before the search began in the overlay: exactness does not wait on a
// goroutine being scheduled.
//
// It also watches each indexed file's inode (addFile), so that a write
// through a name no directory watch covers is seen too.
type watcher struct {
	fd     int
	ov     *overlay
	mu     sync.Mutex       // wds, files, and reading fd
	wds    map[int32]string // watch → directory (relative; "" the root)
	files  map[int32]int    // watch → the number of the file inode it watches (inodeGroups)
	budget *watchBudget
	taken  int64 // file watches held, taken from budget
	dirs   int64 // directory watches held, taken from budget
	spare  int64 // directory watches reserved in budget and not yet added
	buf    []byte
	stop   atomic.Bool
	wake   int           // an eventfd: close wakes drain with it
	done   chan struct{} // closed once drain has released the descriptor
	closed sync.Once
}

func newWatcher(budget *watchBudget) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	w := &watcher{fd: fd, ov: newOverlay(), wds: map[int32]string{}, files: map[int32]int{}, budget: budget, buf: make([]byte, 64<<10),
		wake: wake, done: make(chan struct{})}
	go w.drain()
	return w, nil
}

// addFile opens the regular file name in the open directory dirfd
// without following a link, watches that very inode (through the open
// descriptor, never by name), and only then takes its metadata and link
// count: a change before the watch shows in them, one after is an event.
// watched is false when the file got no watch (the budget is spent, or
// the inode is already watched under another number): every search must
// then stat it. ok is false when it is not a regular file any more.
func (w *watcher) addFile(dirfd int, name string, inode int) (m meta, nlink uint64, ok, watched bool) {
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return meta{}, 0, false, false
	}
	defer unix.Close(fd)
	if w.budget.take(1) {
		w.mu.Lock()
		if w.stop.Load() {
			w.mu.Unlock()
			w.budget.give(1)
		} else {
			wd, err := unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(fd), fileMask)
			_, dir := w.wds[int32(wd)]
			other, taken := w.files[int32(wd)]
			switch {
			case err != nil || dir:
				w.budget.give(1)
			case taken:
				w.budget.give(1)
				watched = other == inode
			default:
				w.files[int32(wd)] = inode
				w.taken++
				watched = true
			}
			w.mu.Unlock()
		}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return meta{}, 0, false, false
	}
	return metaOf(&st), uint64(st.Nlink), true, watched
}

// shareError says a root's directories do not fit the budget.
type shareError struct{ max int64 }

func (e shareError) Error() string {
	return fmt.Sprintf("its directories need more inotify watches than the index's share (%d: half of fs.inotify.max_user_watches, or --index-watches)", e.max)
}

func (w *watcher) errShare() error { return shareError{w.budget.limit()} }

// holdsFiles reports whether w holds file watches.
func (w *watcher) holdsFiles() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.taken > 0
}

// reserveDirs reserves n directory watches in the budget, before the
// files take theirs; false when they do not fit.
func (w *watcher) reserveDirs(n int) bool {
	if !w.budget.take(int64(n)) {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.spare += int64(n)
	return true
}

// unreserve gives back what is reserved and was not used (the tree had
// fewer directories than the index knew).
func (w *watcher) unreserve() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stop.Load() {
		w.budget.give(w.spare)
		w.spare = 0
	}
}

// add watches the directory open as dirfd, rel below the root, with a
// watch reserved, else one taken from the budget. It goes through the
// descriptor, so a directory swapped for a link meanwhile is not
// followed anywhere.
func (w *watcher) add(dirfd int, rel string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop.Load() {
		return errors.New("the watcher is closed")
	}
	if w.spare > 0 {
		w.spare--
	} else if !w.budget.take(1) {
		return w.errShare()
	}
	w.dirs++
	wd, err := unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(dirfd), watchMask)
	if err != nil {
		w.dirs--
		w.budget.give(1)
		if err == unix.ENOSPC {
			return errors.New("too few inotify watches (fs.inotify.max_user_watches) for every directory")
		}
		return err
	}
	w.wds[int32(wd)] = rel
	return nil
}

// drain reads events as they come, so the kernel's queue does not
// overflow between searches; once the watcher is closed (or fails) it
// releases the inotify descriptor, and with it every watch, which only
// then go back to the budget.
func (w *watcher) drain() {
	defer func() {
		w.mu.Lock()
		w.stop.Store(true)
		unix.Close(w.fd)
		w.budget.give(w.taken + w.dirs + w.spare)
		w.taken, w.dirs, w.spare = 0, 0, 0
		w.mu.Unlock()
		close(w.done)
	}()
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(w.wake), Events: unix.POLLIN}}
	for !w.stop.Load() {
		_, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			w.ov.fail("the watcher failed: " + err.Error())
			return
		}
		if fds[0].Revents != 0 {
			w.sync()
		}
	}
}

// sync reads every queued event into the overlay.
func (w *watcher) sync() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.stop.Load() {
		n, err := unix.Read(w.fd, w.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			if err != unix.EAGAIN {
				w.ov.fail("the watcher failed")
			}
			return
		}
		w.parse(w.buf[:n])
	}
}

// parse applies a buffer of events. w.mu is held.
func (w *watcher) parse(b []byte) {
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(b) {
			return
		}
		name := b[unix.SizeofInotifyEvent:end]
		for len(name) > 0 && name[len(name)-1] == 0 {
			name = name[:len(name)-1]
		}
		w.event(ev.Wd, ev.Mask, string(name))
		b = b[end:]
	}
}

func (w *watcher) event(wd int32, mask uint32, name string) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		w.ov.fail("the watcher's queue overflowed")
		return
	}
	if g, ok := w.files[wd]; ok {
		if mask&unix.IN_IGNORED != 0 {
			delete(w.files, wd) // the inode is gone, or unwatchable: its names are read from now on
			w.taken--
			w.budget.give(1)
		}
		w.ov.changedInode(g)
		return
	}
	dir, ok := w.wds[wd]
	if !ok {
		return
	}
	if mask&unix.IN_IGNORED != 0 {
		delete(w.wds, wd) // the kernel dropped the watch
		w.dirs--
		w.budget.give(1)
	}
	if mask&(unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0 {
		if dir == "" {
			w.ov.fail("the root was moved or removed")
		}
		return // the parent's event names the directory
	}
	if name == "" {
		return
	}
	rel := name
	if dir != "" {
		rel = dir + "/" + name
	}
	switch {
	case name == ".gitignore" || name == ".ignore" || name == ".rgignore" || name == ".git":
		w.ov.changed(dir, true) // what the walk keeps below dir may change
	case mask&unix.IN_ISDIR != 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		w.ov.changed(rel, true)
	default:
		w.ov.changed(rel, false)
	}
}

// close stops the watcher and waits for its drain to release the
// descriptor: its watches are gone from the kernel, and back in the
// budget, when close returns (a check that starts over takes them again
// at once).
func (w *watcher) close() {
	if w == nil {
		return
	}
	w.closed.Do(func() {
		w.stop.Store(true)
		var one [8]byte
		one[0] = 1 // any count but 0 wakes the poll
		unix.Write(w.wake, one[:])
		<-w.done
		unix.Close(w.wake)
	})
}

// remoteFS reports whether the file system of the open directory dirfd
// may be changed by another machine, which inotify does not see.
func remoteFS(dirfd int) bool {
	var st unix.Statfs_t
	if unix.Fstatfs(dirfd, &st) != nil {
		return true
	}
	switch uint32(st.Type) {
	case unix.NFS_SUPER_MAGIC, unix.SMB_SUPER_MAGIC, unix.SMB2_SUPER_MAGIC, unix.CIFS_SUPER_MAGIC,
		unix.FUSE_SUPER_MAGIC, unix.CEPH_SUPER_MAGIC, unix.AFS_SUPER_MAGIC, unix.CODA_SUPER_MAGIC,
		unix.OCFS2_SUPER_MAGIC, 0x01021997 /* 9p */, 0x01161970 /* gfs2 */ :
		return true
	}
	return false
}

// devOf is the device of the open directory dirfd.
func devOf(dirfd int) (uint64, bool) {
	var st unix.Stat_t
	if unix.Fstat(dirfd, &st) != nil {
		return 0, false
	}
	return uint64(st.Dev), true
}
