package shell

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Tracing a command's changes: the helper, just before it execs bash,
// installs a seccomp filter that hands every system call able to change
// the file system (opens for writing, truncates, unlinks, renames,
// mkdirs, links, chmods, chowns, utimes; see traps) to a listener, and
// sends the listener to fsmcp over a socket. fsmcp's supervisor reads
// each call's paths from the process, tells the Recorder, and only then
// lets the call go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE): what the
// change replaces is kept before it happens. The filter is inherited by
// every process the command starts, background ones included, and
// cannot be removed; io_uring, which could change files without these
// calls, is refused (EPERM), and so is open_by_handle_at.
//
// What this does not see: a program that races its own check, changing
// a path in its memory from another thread between the supervisor's read
// and the kernel's (the journal is a record, not a wall: the sandbox is
// the wall); writes through a descriptor opened before the command began
// (a background process of an earlier command keeps writing to a file it
// opened then: that command's entry kept the file when it was opened);
// 32-bit system calls, which the filter refuses (ENOSYS).

// trapKind says how a trapped call names what it changes.
type trap struct {
	change      Change
	dir         int // the argument holding the directory descriptor (-1: AT_FDCWD)
	path        int // the argument holding the path (-1: fd-based)
	fd          int // fd-based calls: the argument holding the descriptor
	dir2        int // rename: the second name's directory and path; link: the existing name's
	path2       int
	flags       int  // opens: the argument holding the flags, checked in the filter
	how         bool // openat2: the flags are in the struct open_how the path's next argument points to
	renameFlags int  // renameat2: the argument holding RENAME_EXCHANGE and RENAME_NOREPLACE
	atFlags     int  // the argument holding AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH
	follow      bool
	rmdir       bool // rmdir: only a directory goes
	mkdir       bool // mkdir: a directory is made
	// cmds: ioctl, the requests that change the file (the filter lets
	// every other request go unstopped).
	cmds []uint32
}

const none = -1

func tPath(c Change, path int, follow bool) trap {
	return trap{change: c, dir: none, path: path, fd: none, dir2: none, path2: none, flags: none, renameFlags: none, atFlags: none, follow: follow}
}

func tAt(c Change, dir, path int, follow bool) trap {
	t := tPath(c, path, follow)
	t.dir = dir
	return t
}

// tFd is a call on a descriptor: what it changes is the open file
// itself, never a link to follow.
func tFd(c Change, fd int) trap {
	t := tPath(c, none, false)
	t.fd = fd
	return t
}

// writeFlags are the open flags that make an open a change.
const writeFlags = unix.O_WRONLY | unix.O_RDWR | unix.O_CREAT | unix.O_TRUNC

// The filter's return values.
const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retNotify = unix.SECCOMP_RET_USER_NOTIF
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

// BPF opcodes (classic BPF, as seccomp takes it).
const (
	bpfLdAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJset  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRet   = unix.BPF_RET | unix.BPF_K
)

// seccomp_data offsets.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16 // args[i] at 16+8i; the low 32 bits first (little-endian)
)

// filter is the seccomp program: the architecture checked (another, or
// x32, is refused with ENOSYS), each trapped call handed to the
// listener (an open only with a write flag), io_uring refused.
func filter() ([]unix.SockFilter, error) {
	if traps == nil {
		return nil, errors.New("this architecture has no trap table")
	}
	type ins = unix.SockFilter
	prog := []ins{
		{Code: bpfLdAbs, K: offArch},
		{Code: bpfJeq, K: auditArch, Jt: 1},
		{Code: bpfRet, K: retENOSYS},
		{Code: bpfLdAbs, K: offNr},
	}
	if x32Bit != 0 {
		prog = append(prog, ins{Code: bpfJset, K: x32Bit, Jf: 1}, ins{Code: bpfRet, K: retENOSYS})
	}
	// One jeq per call; a hit jumps to its action, placed after the
	// list: notify, a flag check, or EPERM.
	type target struct {
		at   int // index of the jeq
		dest string
	}
	var jumps []target
	var flagged []struct {
		nr  uint32
		arg int
	}
	for nr, t := range traps {
		prog = append(prog, ins{Code: bpfJeq, K: uint32(nr)})
		switch {
		case len(t.cmds) > 0:
			jumps = append(jumps, target{len(prog) - 1, "cmds"})
		case t.flags != none:
			jumps = append(jumps, target{len(prog) - 1, "flags" + strconv.Itoa(int(nr))})
			flagged = append(flagged, struct {
				nr  uint32
				arg int
			}{uint32(nr), t.flags})
		default:
			jumps = append(jumps, target{len(prog) - 1, "notify"})
		}
	}
	for _, nr := range refused {
		prog = append(prog, ins{Code: bpfJeq, K: uint32(nr)})
		jumps = append(jumps, target{len(prog) - 1, "eperm"})
	}
	labels := map[string]int{}
	prog = append(prog, ins{Code: bpfRet, K: retAllow})
	labels["allow"] = len(prog) - 1
	for _, f := range flagged {
		labels["flags"+strconv.Itoa(int(f.nr))] = len(prog)
		prog = append(prog,
			ins{Code: bpfLdAbs, K: uint32(offArgs + 8*f.arg)},
			ins{Code: bpfJset, K: writeFlags, Jf: 1},
			ins{Code: bpfRet, K: retNotify},
			ins{Code: bpfRet, K: retAllow})
	}
	for _, t := range traps {
		if len(t.cmds) == 0 {
			continue
		}
		labels["cmds"] = len(prog)
		prog = append(prog, ins{Code: bpfLdAbs, K: offArgs + 8*1}) // the request's low 32 bits
		for _, c := range t.cmds {
			prog = append(prog, ins{Code: bpfJeq, K: c, Jf: 1}, ins{Code: bpfRet, K: retNotify})
		}
		prog = append(prog, ins{Code: bpfRet, K: retAllow})
	}
	labels["notify"] = len(prog)
	prog = append(prog, ins{Code: bpfRet, K: retNotify})
	labels["eperm"] = len(prog)
	prog = append(prog, ins{Code: bpfRet, K: retEPERM})
	for _, j := range jumps {
		off := labels[j.dest] - j.at - 1
		if off > 255 {
			return nil, fmt.Errorf("seccomp filter: a jump of %d does not fit", off)
		}
		prog[j.at].Jt = uint8(off)
	}
	if len(prog) > unix.BPF_MAXINSNS {
		return nil, errors.New("seccomp filter too long")
	}
	return prog, nil
}

// installTrace installs the filter on this thread (which execs bash
// next, so bash and all it starts inherit it) and sends its listener to
// fsmcp over the socket sock. A kernel that cannot (before 5.5) gets the
// reason sent instead, and the command runs untraced.
func installTrace(sock int) {
	runtime.LockOSThread()
	err := func() error {
		fd, err := installFilter()
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Sendmsg(sock, []byte{1}, unix.UnixRights(fd), nil, 0)
	}()
	if err != nil {
		unix.Sendmsg(sock, append([]byte{0}, err.Error()...), nil, nil, 0)
	}
	unix.Close(sock)
}

// installFilter installs the filter on the calling thread (locked to
// it: what it starts next inherits it) and returns its listener.
func installFilter() (int, error) {
	prog, err := filter()
	if err != nil {
		return -1, err
	}
	return InstallListener(prog)
}

// InstallListener installs prog as a seccomp filter on the calling
// thread, which the caller has locked (what it starts next inherits the
// filter), and returns the filter's listener (close-on-exec). The bench
// installs its own filter with it too.
func InstallListener(prog []unix.SockFilter) (int, error) {
	// Landlock set no_new_privs already; without it (an unconfined
	// shell) seccomp needs it too.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("no_new_privs: %w", err)
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	fd, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&fp)))
	if e != 0 {
		return -1, fmt.Errorf("seccomp: %w", e)
	}
	unix.CloseOnExec(int(fd))
	return int(fd), nil
}

// receiveListener waits for the helper's listener on sock (until the
// helper exits, or limit); the error says why there is none.
func receiveListener(sock *os.File, limit time.Duration) (int, error) {
	sock.SetReadDeadline(time.Now().Add(limit))
	raw, err := sock.SyscallConn()
	if err != nil {
		return -1, err
	}
	buf := make([]byte, 512)
	oob := make([]byte, unix.CmsgSpace(4))
	var n, oobn int
	var rerr error
	err = raw.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), buf, oob, 0)
		return rerr != unix.EAGAIN
	})
	switch {
	case err != nil:
		return -1, err
	case rerr != nil:
		return -1, rerr
	case n == 0:
		return -1, errors.New("the helper ended before it traced the command")
	case buf[0] == 0:
		return -1, errors.New(string(buf[1:n]))
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) == 0 {
		return -1, errors.New("no listener came with the message")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return -1, errors.New("no listener came with the message")
	}
	unix.CloseOnExec(fds[0])
	return fds[0], nil
}

// seccompNotif and seccompResp are the kernel's struct seccomp_notif
// and struct seccomp_notif_resp.
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

type seccompResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// supervise serves the listener until no process holds the filter any
// more (or stop is closed): each call is read, told to rec, and let go
// on. It closes the listener when it returns.
//
// The calls are taken with a blocking receive, one system call each; a
// second goroutine waits (poll, for POLLHUP) for the last traced process
// to end, and then interrupts the receive with a signal.
func supervise(listener int, rec Recorder, stop <-chan struct{}) {
	superviseWith(listener, rec, stop, false)
}

// superviseWith is supervise; with pollFirst each receive waits first in
// a poll that stop can end (a blocked receive is restarted after the
// signal meant to interrupt it, on kernels since 6.6): a supervisor
// that must hand the listener on (fsmcp run) stops at once.
func superviseWith(listener int, rec Recorder, stop <-chan struct{}, pollFirst bool) {
	runtime.LockOSThread() // the thread the watcher interrupts
	if f, ok := rec.(Finisher); ok {
		defer f.Finished()
	}
	defer unix.Close(listener)
	// A wake-up on the waiting thread's own CPU (Linux 6.6): a call
	// costs a few microseconds less; older kernels refuse and keep the
	// usual wake-up.
	unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_SET_FLAGS, unix.SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
	var ended atomic.Bool
	done := make(chan struct{})
	defer close(done)
	go watchEnd(listener, unix.Getpid(), unix.Gettid(), &ended, stop, done)
	dirs := realDirs{}
	procs := procDirs{}
	linkFree, _ := rec.(LinkFree)
	defer procs.close()
	wake := -1
	if pollFirst {
		if wake, _ = unix.Eventfd(0, unix.EFD_CLOEXEC); wake >= 0 {
			defer unix.Close(wake)
			go func() {
				select {
				case <-stop:
					unix.Write(wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
				case <-done:
				}
			}()
		}
	}
	for !ended.Load() {
		if pollFirst {
			select {
			case <-stop:
				return
			default:
			}
			if !readable(listener, wake) {
				continue
			}
		}
		var nt seccompNotif
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&nt))); e != 0 {
			if e == unix.EINTR || e == unix.ENOENT {
				continue // interrupted, or the caller was killed meanwhile
			}
			return
		}
		if ev, ok := decode(&nt, procs); ok {
			var notDir, toNotDir bool
			ev.Path, notDir = dirs.path(ev.Pid, ev.Path)
			ev.To, toNotDir = dirs.path(ev.Pid, ev.To)
			// A name with a file above it (link-to-file/../a): the call
			// fails (ENOTDIR) and changes nothing. Told to the recorder,
			// the path as the walk went on would be another file's.
			if !notDir && !toNotDir {
				if ev.Follow && linkFree != nil && linkFree.NoLinks(ev.Path) {
					ev.Follow = false
				} else if ev.Follow {
					followLink(&ev)
				}
				dirs.after(ev, traps[uintptr(nt.Nr)])
				rec.Before(ev)
			}
		}
		resp := seccompResp{ID: nt.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
		unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
	}
}

// readable waits up to a tenth of a second for a call on listener, or
// for wake (an eventfd stop writes to; -1 for none) to be written.
func readable(listener, wake int) bool {
	fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}, {Fd: int32(wake), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 100)
	return err == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0
}

// realDirs are the directories of the paths calls name as the kernel
// takes them, links among them followed ("ln -s tree t; rm t/a" removes
// tree/a, and a record of t/a would be undone through whatever t is by
// then), each read once until a call could change what one is.
type realDirs map[string]string

// path is p with its directory's links followed, for process pid (a
// directory reached through its own links in /proc is not kept).
// notDir says something not a directory stands where the walk needs one
// (the call fails with ENOTDIR).
func (r realDirs) path(pid int, p string) (_ string, notDir bool) {
	if p == "" {
		return p, false
	}
	if dotDot(p) {
		// Its directory walked as the kernel walks it, links before
		// "..", each time (the raw name is no key for the cache).
		i := strings.LastIndexByte(p, '/')
		dir, name := p[:i], p[i+1:]
		if name == ".." || name == "." || name == "" {
			real, _, notDir := realPath(pid, p, true)
			return real, notDir
		}
		real, _, notDir := realPath(pid, "/"+strings.TrimPrefix(dir, "/"), true)
		return filepath.Join(real, name), notDir
	}
	dir, name := filepath.Dir(p), filepath.Base(p)
	real, ok := r[dir]
	if !ok {
		var viaProc bool
		if real, ok, notDir = r.child(dir); !ok {
			real, viaProc, notDir = realPath(pid, dir, true)
		}
		if notDir {
			return p, true
		}
		if !viaProc {
			r[dir] = real
		}
	}
	if real == dir {
		return p, false
	}
	return filepath.Join(real, name), false
}

// child resolves dir from its parent's entry, one lstat instead of one
// per name of it (a command making thousands of directories, each new to
// the cache): ok is false where realPath must walk (no parent's entry, a
// link, /proc or /dev).
func (r realDirs) child(dir string) (real string, ok, notDir bool) {
	parent, name := filepath.Dir(dir), filepath.Base(dir)
	rp, cached := r[parent]
	if !cached || parent == dir || name == ".." || name == "." || isProc(dir) || isProc(rp) {
		return "", false, false
	}
	real = filepath.Join(rp, name)
	fi, err := os.Lstat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return real, true, false // as realPath: the rest kept as it is
	case err != nil || fi.Mode()&os.ModeSymlink != 0:
		return "", false, false
	case !fi.IsDir():
		return real, true, true
	}
	return real, true, false
}

// realPath is p with every link in it followed as the kernel follows
// them for process pid: a link into /proc or /dev/fd through procPath
// (the process's own descriptors and working directory, not fsmcp's).
// viaProc says one was; a name that does not exist ends the walk, the
// rest kept as it is. notDir says the walk met something that exists
// and is no directory (nor a link) with names still after it, or at the
// end when dir asks for a directory there, or nothing with a ".." still
// after it: the kernel's walk fails (ENOTDIR, ENOENT) where this one
// would go on, through "..", to another file.
func realPath(pid int, p string, dir bool) (real string, viaProc, notDir bool) {
	if isProc(p) {
		if p = procPath(pid, p); isProc(p) {
			return p, true, false // not a file of the roots
		}
		viaProc = true
	}
	rest := strings.Split(strings.TrimPrefix(p, "/"), "/")
	cur := "/"
	for links := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		if c == "" || c == "." {
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			if err != nil {
				// Nothing there: the kernel's walk ends too (ENOENT), so a
				// ".." after it leads nowhere, not where cleaning the
				// name by hand would (rm -rf a/l/../../x, a missing,
				// removes no x).
				return filepath.Join(append([]string{cur}, rest...)...), viaProc, slices.Contains(rest, "..")
			}
			if !fi.IsDir() && (len(rest) > 0 || dir) {
				return filepath.Join(append([]string{cur}, rest...)...), viaProc, true
			}
			continue
		}
		if links++; links > 40 {
			return p, viaProc, false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return p, viaProc, false
		}
		abs := target
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cur, abs)
		}
		if full := filepath.Join(append([]string{abs}, rest...)...); isProc(full) {
			viaProc = true
			if full = procPath(pid, full); isProc(full) {
				return full, true, false // not a file of the roots
			}
			rest = strings.Split(strings.TrimPrefix(full, "/"), "/")
			cur = "/"
			continue
		}
		// The target's names come next, walked one by one: a ".." after
		// a link in them, or in the rest, is the parent of where the
		// link leads, not the link's own directory.
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, viaProc, false
}

// isProc reports whether p lies in /proc or /dev, where a link's target
// is the caller's, read through procPath.
func isProc(p string) bool {
	return within(p, "/proc") || within(p, "/dev")
}

// followLink settles ev.Path for a call that follows a final link. A
// link in /proc (to a descriptor, or the working directory) is the
// caller's to read, so its target takes the link's place; any other link
// is the recorder's to follow within the roots. Where Path is no link,
// its lstat goes with the event (Seen), since the recorder would take
// the same one next.
func followLink(ev *Event) {
	fi, err := os.Lstat(ev.Path)
	if err == nil && fi.Mode()&os.ModeSymlink == 0 || errors.Is(err, fs.ErrNotExist) {
		ev.Seen, ev.Follow = &Lstat{Info: fi, Err: err}, false
		return
	}
	if err != nil {
		return // the recorder looks again, its own way
	}
	target, err := os.Readlink(ev.Path)
	if err != nil {
		return
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(ev.Path), target)
	}
	if real, viaProc, _ := realPath(ev.Pid, filepath.Clean(target), false); viaProc {
		ev.Path = real
	}
}

// after forgets the directories a call may make name another: at or
// below what it removes, renames, exchanges, or makes (a link, a
// directory) where nothing was.
func (r realDirs) after(ev Event, t trap) {
	switch {
	case ev.Change == Remove:
		r.forget(ev.Path)
	case ev.Change == Rename || ev.Change == Exchange:
		r.forget(ev.Path)
		r.forget(ev.To)
	case ev.Change == Create && t.flags == none && !t.how && t.path2 == none && !t.mkdir:
		// A directory made where nothing was leaves every name below
		// it as the cache has it (nothing there had a link to follow).
		r.forget(ev.Path)
	}
}

// forget drops the directories whose name or real name is p or below it.
func (r realDirs) forget(p string) {
	for k, v := range r {
		if within(k, p) || within(v, p) {
			delete(r, k)
		}
	}
}

// watchEnd waits until no process holds the listener's filter (POLLHUP)
// or stop is closed, then marks the end and interrupts the supervisor's
// thread (pid, tid) until it is done.
func watchEnd(listener, pid, tid int, ended *atomic.Bool, stop <-chan struct{}, done <-chan struct{}) {
	fds := []unix.PollFd{{Fd: int32(listener)}}
wait:
	for {
		select {
		case <-stop:
			break wait
		case <-done:
			return
		default:
		}
		n, err := unix.Poll(fds, 500)
		if err != nil && err != unix.EINTR || n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
			break
		}
	}
	ended.Store(true)
	// Repeated: a signal that lands before the receive blocks is lost.
	for {
		unix.Tgkill(pid, tid, unix.SIGURG)
		select {
		case <-done:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// decode reads what the call nt is about to change. ok is false for an
// open with no write flag (openat2), a path that cannot be read (the
// call then fails by itself), or a process gone meanwhile.
func decode(nt *seccompNotif, procs procDirs) (Event, bool) {
	t, ok := traps[uintptr(nt.Nr)]
	if !ok {
		return Event{}, false
	}
	pid := int(nt.Pid)
	ev := Event{Change: t.change, Follow: t.follow, Pid: pid}
	if t.how {
		var flags [8]byte
		if readMem(pid, uintptr(nt.Args[t.path+1]), flags[:]) != nil {
			return Event{}, false
		}
		f := *(*uint64)(unsafe.Pointer(&flags[0]))
		if f&writeFlags == 0 {
			return Event{}, false
		}
		ev.Follow = f&unix.O_NOFOLLOW == 0 && f&(unix.O_CREAT|unix.O_EXCL) != unix.O_CREAT|unix.O_EXCL
	}
	// O_CREAT|O_EXCL follows no final link either: a link there fails
	// the call (EEXIST), wherever it points (tar x opens its files so).
	if t.flags != none && (nt.Args[t.flags]&unix.O_NOFOLLOW != 0 || nt.Args[t.flags]&(unix.O_CREAT|unix.O_EXCL) == unix.O_CREAT|unix.O_EXCL) {
		ev.Follow = false
	}
	if t.atFlags != none && nt.Args[t.atFlags]&unix.AT_SYMLINK_NOFOLLOW != 0 {
		ev.Follow = false // chown -h, touch -h: the link itself
	}
	var err error
	switch {
	case t.path == none:
		ev.Path, err = procs.fdPath(pid, int32(nt.Args[t.fd]))
	default:
		ev.Path, err = callPath(procs, pid, t.dir, nt, t.path)
		if err == errNullPath && t.dir != none { // utimensat(fd, NULL, ...)
			ev.Path, err = procs.fdPath(pid, int32(nt.Args[t.dir]))
			ev.Follow = false
		}
		if err == errEmptyPath { // AT_EMPTY_PATH: the descriptor's own file
			ev.Path, err = procs.fdPath(pid, int32(nt.Args[t.dir]))
			ev.Follow = false
		}
	}
	if err == nil && t.path2 != none {
		ev.To, err = callPath(procs, pid, t.dir2, nt, t.path2)
	}
	if errors.Is(err, errTooLong) || errors.Is(err, unix.ENAMETOOLONG) {
		return Event{Change: Unreadable, Pid: pid}, true
	}
	if err != nil {
		return Event{}, false
	}
	if t.renameFlags != none && nt.Args[t.renameFlags]&unix.RENAME_EXCHANGE != 0 {
		ev.Change = Exchange
	}
	if t.renameFlags != none && nt.Args[t.renameFlags]&unix.RENAME_NOREPLACE != 0 {
		ev.NoReplace = true
	}
	if ev.Change == Rename {
		ev.CrossMount = crossMount(pid, ev.Path, ev.To)
	}
	ev.RemoveDir = t.rmdir || ev.Change == Remove && uintptr(nt.Nr) == unix.SYS_UNLINKAT && nt.Args[2]&unix.AT_REMOVEDIR != 0
	ev.MakeDir = t.mkdir
	// Not checked with NOTIF_ID_VALID: were the caller gone and its pid
	// taken by another process meanwhile, the path read would be another's
	// and the journal would record one path more, nothing worse.
	return ev, true
}

// crossMount reports whether from and to's directory lie on different
// mounts as process pid sees them (through its /proc/PID/root: a
// sandboxed shell's private temp directory is not fsmcp's).
func crossMount(pid int, from, to string) bool {
	root := "/proc/" + strconv.Itoa(pid) + "/root"
	var a, b unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, root+from, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_MNT_ID, &a) != nil ||
		unix.Statx(unix.AT_FDCWD, root+filepath.Dir(to), 0, unix.STATX_MNT_ID, &b) != nil {
		return false
	}
	if a.Mask&b.Mask&unix.STATX_MNT_ID != 0 && a.Mnt_id != b.Mnt_id {
		return true
	}
	return a.Dev_major != b.Dev_major || a.Dev_minor != b.Dev_minor
}

var (
	errTooLong   = errors.New("path too long")
	errNullPath  = errors.New("no path")
	errEmptyPath = errors.New("an empty path")
)

// callPath is the absolute path argument i of the call names, resolved
// against the directory descriptor in argument dir (or the working
// directory) as the process sees them.
func callPath(procs procDirs, pid, dir int, nt *seccompNotif, i int) (string, error) {
	addr := uintptr(nt.Args[i])
	if addr == 0 {
		return "", errNullPath
	}
	p, err := readString(pid, addr)
	if err != nil {
		return "", err
	}
	if p == "" && dir != none {
		return "", errEmptyPath
	}
	if filepath.IsAbs(p) {
		if dotDot(p) {
			return p, nil // realDirs.path takes its ".." as the kernel does
		}
		return procPath(pid, filepath.Clean(p)), nil
	}
	var base string
	if dir == none || int32(nt.Args[dir]) == unix.AT_FDCWD {
		base, err = procs.readlink(pid, "cwd")
	} else {
		base, err = procs.fdPath(pid, int32(nt.Args[dir]))
	}
	if err != nil {
		return "", err
	}
	if dotDot(p) {
		return base + "/" + p, nil // not cleaned: see dotDot
	}
	return procPath(pid, filepath.Join(base, p)), nil
}

// dotDot reports whether p has a ".." component. Cleaned by hand, "l/../x"
// is "x", but the kernel takes l first, and where l is a link to a/c it
// names a/x (ln -sfn tree/deep l; echo w > l/../a.txt wrote tree/a.txt,
// journaled as ./a.txt): such a path is left as it is, for realDirs.path
// to follow its links and its ".." in order.
func dotDot(p string) bool {
	for c := range strings.SplitSeq(p, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

// procPath is p with the process's own links in /proc followed: a path
// through /proc/self/fd/N (/dev/fd/N, /dev/stdout), /proc/PID/fd/N or
// /proc/self/cwd names a file in the roots by a name outside them, so
// the tracer reads the link the kernel will follow, as fdPath does, and
// puts its target in its place. A link it cannot read (another
// process's, in another pid namespace) leaves p as it is.
func procPath(pid int, p string) string {
	for range 8 { // a descriptor's target is a real path: one turn, or two through /dev/fd
		q, ok := procLink(pid, p)
		if !ok {
			return p
		}
		p = q
	}
	return p
}

// procLink is one step of procPath.
func procLink(pid int, p string) (string, bool) {
	if rest, ok := strings.CutPrefix(p, "/dev/"); ok {
		switch {
		case rest == "stdin":
			return "/proc/self/fd/0", true
		case rest == "stdout":
			return "/proc/self/fd/1", true
		case rest == "stderr":
			return "/proc/self/fd/2", true
		case rest == "fd" || strings.HasPrefix(rest, "fd/"):
			return "/proc/self/" + rest, true
		}
		return p, false
	}
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return p, false
	}
	first, rest, _ := strings.Cut(rest, "/")
	var dir string
	switch first {
	case "self":
		dir = "/proc/" + strconv.Itoa(pid)
	case "thread-self":
		dir = "/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid)
	default:
		n, err := strconv.Atoi(first)
		if err != nil {
			return p, false
		}
		dir = "/proc/" + strconv.Itoa(ownPid(pid, n))
		if task, r, _ := strings.Cut(rest, "/"); task == "task" {
			t, r, _ := strings.Cut(r, "/")
			n, err := strconv.Atoi(t)
			if err != nil {
				return p, false
			}
			dir += "/task/" + strconv.Itoa(ownPid(pid, n))
			rest = r
		}
	}
	name, rest, _ := strings.Cut(rest, "/")
	link := dir + "/" + name
	switch name {
	case "cwd":
	case "fd":
		fd, r, _ := strings.Cut(rest, "/")
		if _, err := strconv.Atoi(fd); err != nil {
			return p, false
		}
		link, rest = link+"/"+fd, r
	default:
		return p, false
	}
	target, err := os.Readlink(link)
	if err != nil || !filepath.IsAbs(target) {
		return p, false
	}
	return filepath.Join(target, rest), true
}

// ownPid is the pid, in fsmcp's pid namespace, of the process that
// process pid (a thread's id, as seccomp reports it) calls n in its own:
// n where they share one, its own pid or thread id where n is that in
// its namespace (a sandboxed shell's), else -1 (another process there).
func ownPid(pid, n int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return n
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k != "NStgid" && k != "NSpid" {
			continue
		}
		f := strings.Fields(v)
		if len(f) <= 1 {
			return n // one pid namespace: fsmcp's
		}
		if f[len(f)-1] == strconv.Itoa(n) {
			if o, err := strconv.Atoi(f[0]); err == nil {
				return o
			}
		}
	}
	return -1
}

// fdPath is the path of the process's descriptor fd.
func (d procDirs) fdPath(pid int, fd int32) (string, error) {
	p, err := d.readlink(pid, "fd/"+strconv.Itoa(int(fd)))
	if err != nil || !filepath.IsAbs(p) {
		return "", errors.New("not a path")
	}
	return p, nil
}

// procDirs holds a traced process's /proc directory open once it made
// a call: its working directory and descriptors are then read through
// the handle, without looking /proc/PID up again each time. A handle
// stays with its process: once that ends, reads through it fail, and the
// next process given the same pid gets a handle of its own, never the
// old one's answers.
type procDirs map[int]int

// maxProcDirs bounds the handles kept; past it they are all closed.
const maxProcDirs = 64

// readlink reads the link name in process pid's /proc directory.
func (d procDirs) readlink(pid int, name string) (string, error) {
	fd, kept := d[pid]
	if kept {
		if s, err := readlinkAt(fd, name); err == nil {
			return s, nil
		}
		unix.Close(fd) // its process may have ended, the pid another's now
		delete(d, pid)
	}
	if len(d) >= maxProcDirs {
		d.close()
	}
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	d[pid] = fd
	return readlinkAt(fd, name)
}

func (d procDirs) close() {
	for pid, fd := range d {
		unix.Close(fd)
		delete(d, pid)
	}
}

// readlinkAt is readlinkat(2) into a buffer on the stack.
func readlinkAt(dir int, name string) (string, error) {
	var buf [unix.PathMax]byte
	for {
		n, err := unix.Readlinkat(dir, name, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", &os.PathError{Op: "readlinkat", Path: name, Err: err}
		}
		if n == len(buf) {
			return "", &os.PathError{Op: "readlinkat", Path: name, Err: unix.ENAMETOOLONG}
		}
		return string(buf[:n]), nil
	}
}

var pageSize = uintptr(os.Getpagesize())

// readString reads a NUL-terminated string (PATH_MAX at most) from the
// process's memory, a page at a time (the next page may not be mapped).
func readString(pid int, addr uintptr) (string, error) {
	// Most paths are short: a first read of 256 bytes (within the page,
	// on the stack) is enough, and the rest a page at a time when not.
	var first [256]byte
	n := min(int(pageSize-addr%pageSize), len(first))
	if err := readMem(pid, addr, first[:n]); err != nil {
		return "", err
	}
	if i := bytes.IndexByte(first[:n], 0); i >= 0 {
		return string(first[:i]), nil
	}
	out := append([]byte(nil), first[:n]...)
	addr += uintptr(n)
	buf := make([]byte, pageSize)
	for len(out) < unix.PathMax {
		n := int(pageSize - addr%pageSize)
		if err := readMem(pid, addr, buf[:n]); err != nil {
			return "", err
		}
		if i := bytes.IndexByte(buf[:n], 0); i >= 0 {
			return string(append(out, buf[:i]...)), nil
		}
		out = append(out, buf[:n]...)
		addr += uintptr(n)
	}
	return "", errTooLong
}

func readMem(pid int, addr uintptr, b []byte) error {
	local := []unix.Iovec{{Base: &b[0]}}
	local[0].SetLen(len(b))
	remote := []unix.RemoteIovec{{Base: addr, Len: len(b)}}
	n, err := unix.ProcessVMReadv(pid, local, remote, 0)
	if err == nil && n != len(b) {
		err = errors.New("short read")
	}
	return err
}

// tracing is a command's tracing, from the socket the helper sends its
// listener on to the supervisor that outlives the command as long as a
// process of it does.
type tracing struct {
	mine, theirs *os.File // the socket's two ends
	err          error    // why the command is not traced
	stop         chan struct{}
	once         sync.Once
}

// newTracing makes the socket; theirs goes to the helper.
func newTracing() (*tracing, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &tracing{mine: os.NewFile(uintptr(fds[0]), "trace"), theirs: os.NewFile(uintptr(fds[1]), "trace-helper"), stop: make(chan struct{})}, nil
}

// started is called once the helper runs: it takes the listener and
// serves rec until the traced processes are gone.
func (t *tracing) started(rec Recorder) {
	t.theirs.Close()
	l, err := receiveListener(t.mine, 10*time.Second)
	t.mine.Close()
	if err != nil {
		t.err = err
		return
	}
	go supervise(l, rec, t.stop)
}

// close stops the supervisor (the session is over: its processes are
// killed).
func (t *tracing) close() { t.once.Do(func() { close(t.stop) }) }

func withFlags(t trap, arg int) trap { t.flags = arg; return t }
func withHow(t trap) trap            { t.how = true; return t }
func second(t trap, dir, path int) trap {
	t.dir2, t.path2 = dir, path
	return t
}
func withRenameFlags(t trap, arg int) trap { t.renameFlags = arg; return t }
func rmdirTrap(t trap) trap                { t.rmdir = true; return t }
func mkdirTrap(t trap) trap                { t.mkdir = true; return t }
func withAtFlags(t trap, arg int) trap     { t.atFlags = arg; return t }
func withCmds(t trap, cmds ...uint32) trap { t.cmds = cmds; return t }

// The ioctl requests that change a file's inode flags: chattr's
// FS_IOC_SETFLAGS (and its 32-bit spelling), and FS_IOC_FSSETXATTR.
const (
	fsIocSetFlags   = 0x40086602
	fsIoc32SetFlags = 0x40046602
	fsIocFsSetXattr = 0x401c5820
)
