package shell

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The sandbox helper is fsmcp itself, but never taken from a path: the
// binary may lie inside a root (make run serves the repository that holds
// bin/fsmcp; ~/go/bin is under ~), where the agent could replace it and
// have the next fs_bash call run its script before any confinement. So
// the running program (/proc/self/exe, the inode being executed, whatever
// its path now names) is copied once into a memfd that is then sealed
// against every change, and each call executes that copy through
// /proc/self/fd/N of the child. Nothing the agent can write is ever
// executed unconfined.
var sealed struct {
	once sync.Once
	f    *os.File
	err  error
}

// PrepareHelper makes the sealed copy of the running program now, so that
// main can take it at start, before any tool has run. Sessions call it
// too; it does the work once.
func PrepareHelper() error {
	_, err := sealedHelper()
	return err
}

// sealedHelper returns the sealed copy of the running program.
func sealedHelper() (*os.File, error) {
	sealed.once.Do(func() {
		sealed.f, sealed.err = sealCopy("/proc/self/exe")
		if sealed.err != nil {
			sealed.err = fmt.Errorf("shell: sealed copy of fsmcp for the sandbox helper: %w", sealed.err)
		}
	})
	return sealed.f, sealed.err
}

// sealCopy copies the file at path into a new memfd and seals it: no
// write, no growing or shrinking, no further change of the seals.
func sealCopy(path string) (*os.File, error) {
	src, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	const flags = unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING
	fd, err := unix.MemfdCreate("fsmcp-sandbox-helper", flags|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) { // kernels before 6.3 know no MFD_EXEC; their memfds are executable
		fd, err = unix.MemfdCreate("fsmcp-sandbox-helper", flags)
	}
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "fsmcp-sandbox-helper")
	if _, err := io.Copy(f, src); err != nil {
		f.Close()
		return nil, err
	}
	seals, err := seal(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("sealing the memfd: %w", err)
	}
	if got, err := unix.FcntlInt(f.Fd(), unix.F_GET_SEALS, 0); err != nil || got&seals != seals {
		f.Close()
		return nil, fmt.Errorf("the memfd is not sealed (seals %#x): %v", got, err)
	}
	return f, nil
}

// seal seals f against any change and returns the seals it holds.
// F_SEAL_WRITE fails with EBUSY while any of the memfd's pages holds an
// extra reference, which a page just written still does for a moment
// while it waits in another CPU's LRU batch (seen about once in eight
// starts on a loaded 2-core machine): it is tried again for a while, and
// then F_SEAL_FUTURE_WRITE (Linux 5.1) is taken instead, which forbids
// every write from now on just the same where, as here, nothing has the
// memfd mapped.
func seal(f *os.File) (int, error) {
	const rest = unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_SEAL
	var err error
	for wait := time.Millisecond; wait < time.Second; wait *= 2 {
		if _, err = unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_WRITE|rest); !errors.Is(err, unix.EBUSY) {
			return unix.F_SEAL_WRITE | rest, err
		}
		time.Sleep(wait)
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_FUTURE_WRITE|rest); err != nil {
		return 0, err
	}
	return unix.F_SEAL_FUTURE_WRITE | rest, nil
}

// closeOnExecFrom marks every descriptor from fd up close-on-exec.
func closeOnExecFrom(fd int) error {
	if err := unix.CloseRange(uint(fd), ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	// Before Linux 5.11: one by one, as /proc lists them.
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("listing inherited descriptors: %w", err)
	}
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && n >= fd {
			unix.CloseOnExec(n)
		}
	}
	return nil
}
