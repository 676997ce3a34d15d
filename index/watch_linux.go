//go:build linux

package index

import (
	"errors"
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

// watchBudget bounds the watches of one Searcher: its file watches and
// the directory watches its indexes will need (reserved before a check)
// take at most half of the user's fs.inotify.max_user_watches, which
// every program the user runs shares (an editor's watcher, fsmcp's own
// fs_watch, a second fsmcp on the same tree, which needs as many
// directory watches to follow it at all). A file that gets none is
// stat'ed by every search instead of trusted.
type watchBudget struct {
	once sync.Once
	max  int64
	used atomic.Int64
	dirs atomic.Int64 // directory watches reserved
}

// take takes one watch from the budget, if any is left.
func (b *watchBudget) take() bool {
	b.once.Do(func() {
		b.max = 4096 // the kernel's smallest default is 8192
		if v, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches"); err == nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64); err == nil && n > 0 {
				// Half, less a little: a check watches a few more
				// directories than it reserved (empty ones, new ones),
				// and two servers' halves must leave room for those.
				b.max = n/2 - n/64
			}
		}
	})
	if b.used.Add(1)+b.dirs.Load() > b.max {
		b.used.Add(-1)
		return false
	}
	return true
}

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
	taken  int64 // file watches taken from budget
	dirs   int64 // directory watches reserved in budget
	buf    []byte
	stop   atomic.Bool
}

func newWatcher(budget *watchBudget) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	w := &watcher{fd: fd, ov: newOverlay(), wds: map[int32]string{}, files: map[int32]int{}, budget: budget, buf: make([]byte, 64<<10)}
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
	if w.budget.take() {
		w.mu.Lock()
		if w.stop.Load() {
			w.mu.Unlock()
			w.budget.used.Add(-1)
		} else {
			wd, err := unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(fd), fileMask)
			_, dir := w.wds[int32(wd)]
			other, taken := w.files[int32(wd)]
			switch {
			case err != nil || dir:
				w.budget.used.Add(-1)
			case taken:
				w.budget.used.Add(-1)
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

// reserveDirs counts n directory watches against the budget, before
// the files take theirs.
func (w *watcher) reserveDirs(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dirs += int64(n)
	w.budget.dirs.Add(int64(n))
}

// add watches the directory open as dirfd, rel below the root. It goes
// through the descriptor, so a directory swapped for a link meanwhile is
// not followed anywhere.
func (w *watcher) add(dirfd int, rel string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop.Load() {
		return errors.New("the watcher is closed")
	}
	wd, err := unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(dirfd), watchMask)
	if err != nil {
		if err == unix.ENOSPC {
			return errors.New("too few inotify watches (fs.inotify.max_user_watches) for every directory")
		}
		return err
	}
	w.wds[int32(wd)] = rel
	return nil
}

// drain reads events as they come, so the kernel's queue does not
// overflow between searches; once the watcher is closed it releases the
// inotify descriptor (and with it every watch).
func (w *watcher) drain() {
	defer func() {
		w.mu.Lock()
		unix.Close(w.fd)
		w.mu.Unlock()
	}()
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}}
	for !w.stop.Load() {
		n, err := unix.Poll(fds, 500)
		if err != nil && err != unix.EINTR {
			w.ov.fail("the watcher failed: " + err.Error())
			return
		}
		if n > 0 {
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
		}
		w.ov.changedInode(g)
		return
	}
	dir, ok := w.wds[wd]
	if !ok {
		return
	}
	if mask&unix.IN_IGNORED != 0 {
		delete(w.wds, wd)
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

// close stops the watcher without waiting: its drain releases the
// descriptor within one poll (half a second).
func (w *watcher) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	if !w.stop.Swap(true) {
		w.budget.used.Add(-w.taken) // released with the descriptor
		w.budget.dirs.Add(-w.dirs)
	}
	w.mu.Unlock()
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
