//go:build linux

package index

import (
	"errors"
	"strconv"
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

// watcher follows every directory of one root with inotify. inotify
// queues an event while the change's system call runs, so reading the
// queue dry before a search (sync) puts every change that returned
// before the search began in the overlay: exactness does not wait on a
// goroutine being scheduled.
type watcher struct {
	fd   int
	ov   *overlay
	mu   sync.Mutex       // wds, and reading fd
	wds  map[int32]string // watch → directory (relative; "" the root)
	buf  []byte
	stop atomic.Bool
}

func newWatcher() (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	w := &watcher{fd: fd, ov: newOverlay(), wds: map[int32]string{}, buf: make([]byte, 64<<10)}
	go w.drain()
	return w, nil
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
	if w != nil {
		w.stop.Store(true)
	}
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
