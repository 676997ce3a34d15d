package shell

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// ErrNoLandlock is returned (wrapped) when the sandboxed mode is asked for
// and the running kernel cannot enforce Landlock. The caller must not fall
// back to running unconfined when the user asked for the sandbox.
var ErrNoLandlock = errors.New("landlock is not available on this kernel (needs Linux 5.13+ with CONFIG_SECURITY_LANDLOCK and landlock in the lsm= boot list)")

// Available reports the kernel's Landlock ABI version and whether
// fs_bash can be sandboxed here (ABI 1 or later).
func Available() (abi int, ok bool) {
	v, err := landlockABI()
	if err != nil || v < 1 {
		return 0, false
	}
	return v, true
}

// landlockABI asks the kernel; tests replace it to play a kernel without
// Landlock.
var landlockABI = llsys.LandlockGetABIVersion

// restrict applies p to this process with Landlock.
//
// The configuration handles every file-system right go-landlock knows
// (up to ABI 11: refer from ABI 2, truncate from 3, device ioctl from 5,
// connecting to pathname unix sockets from 9) and both IPC scopes from
// ABI 6 (the shell cannot signal processes outside its sandbox, fsmcp
// included, nor connect to abstract unix sockets outside it). BestEffort
// lets it run on older kernels with the rights those kernels know; the
// caller reports the ABI (Available), and the check at the end refuses
// to go on if nothing was enforced.
//
// Network access (TCP bind/connect, UDP) is deliberately left as is: the
// shell is confined in the file system, not on the network, so git
// fetch, go mod download and curl work.
func restrict(p policy) error {
	abi, ok := Available()
	if !ok {
		return ErrNoLandlock
	}
	cfg := landlock.V11.BestEffort()
	cfg.HandledAccessNet = 0

	fdPaths, err := inheritedDirs(p.RWDirs)
	if err != nil {
		return err
	}
	rw := landlock.RWDirs(append(append([]string{}, p.RW...), fdPaths...)...).WithResolveUnix()
	if abi >= 2 {
		// Without refer, mv between two directories of a root fails
		// with EXDEV. Asking for it on ABI 1 would make BestEffort
		// enforce nothing at all, so only ask where it exists.
		rw = rw.WithRefer()
	}
	rules := []landlock.Rule{
		rw,
		landlock.RODirs(existing(p.RX)...),
		landlock.PathAccess(llsys.AccessFSReadFile|llsys.AccessFSReadDir, existingDirs(p.RO)...),
		landlock.PathAccess(llsys.AccessFSReadFile, existingFiles(p.RO)...),
		landlock.PathAccess(llsys.AccessFSReadFile|llsys.AccessFSWriteFile|llsys.AccessFSTruncate, existing(p.Dev)...),
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	for _, d := range p.RWDirs {
		unix.CloseOnExec(d.FD) // the command does not inherit them
	}
	// Fail closed: "/" is in no rule, so listing it must now be denied.
	f, err := os.Open("/")
	if err == nil {
		f.Close()
		return errors.New("landlock did not take effect (/ is still readable)")
	}
	if !errors.Is(err, syscall.EACCES) {
		return fmt.Errorf("landlock self-check: %w", err)
	}
	return nil
}

// inheritedDirs names each inherited directory descriptor for a Landlock
// rule: /proc/self/fd/N, which the kernel resolves to the open directory
// itself (no lookup by name, so no race). Where /proc is not mounted, the
// name it was opened as, if it still leads to that very directory (a
// narrow window remains between this check and Landlock's own open).
func inheritedDirs(dirs []fdDir) ([]string, error) {
	var out []string
	for _, d := range dirs {
		var want unix.Stat_t
		if err := unix.Fstat(d.FD, &want); err != nil {
			return nil, fmt.Errorf("allowed directory %s: inherited descriptor %d: %w", d.Name, d.FD, err)
		}
		same := func(p string) bool {
			var st unix.Stat_t
			return unix.Stat(p, &st) == nil && st.Dev == want.Dev && st.Ino == want.Ino
		}
		switch proc := fmt.Sprintf("/proc/self/fd/%d", d.FD); {
		case same(proc):
			out = append(out, proc)
		case same(d.Name):
			out = append(out, d.Name)
		default:
			return nil, fmt.Errorf("allowed directory %s changed while the command was starting", d.Name)
		}
	}
	return out, nil
}

// existing keeps the paths that exist (following symlinks: a rule on a
// symlink applies to its target).
func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func existingDirs(paths []string) []string {
	var out []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

func existingFiles(paths []string) []string {
	var out []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			out = append(out, p)
		}
	}
	return out
}
