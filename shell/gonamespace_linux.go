package shell

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Where bwrap is missing, fsmcp builds the shell's namespaces itself: the
// helper is started in a new user, mount, IPC and UTS namespace
// (CLONE_NEWUSER maps fsmcp's uid and gid to themselves) and, before
// Landlock, builds a private root as bwrap would (buildRoot). It has no
// pid namespace of its own (Go cannot join one per call), so /proc is the
// host's, bound in, and stays denied by Landlock; background processes
// are held by the command's keeper (keeper_linux.go), which the helper
// started in the namespaces is before it starts the command below it.

// probeGo runs the helper once in namespaces of its own, with a private
// root, and bash in it.
func probeGo() error {
	helper, err := sealedHelper()
	if err != nil {
		return err
	}
	bash, err := lookPath("bash", os.Getenv("PATH"))
	if err != nil {
		bash = "/bin/bash"
	}
	dir, err := os.MkdirTemp("", "fsmcp-shell-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return err
	}
	nr, tmp := filepath.Join(dir, "root"), filepath.Join(dir, "tmp")
	for _, d := range []string{nr, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	pol := policy{RW: []string{tmp}, RX: systemRX, RO: systemRO, Dev: systemDev,
		Mount: &mountPlan{Dir: nr, RO: append(append([]string{}, systemRX...), systemRO...), Tmp: tmp, Cwd: tmp}}
	argv, err := sandboxCommand(helperPath(3), pol, []string{bash, "--noprofile", "--norc", "-c", "cd " + tmp + " && test ! -e " + dir + "/root"})
	if err != nil {
		return err
	}
	out := &lastBytes{limit: 4096}
	cmd := &exec.Cmd{Path: argv[0], Args: argv, Stdout: out, Stderr: out, Dir: tmp, ExtraFiles: []*os.File{helper}, SysProcAttr: nsSysProcAttr()}
	if err := runBounded(cmd, time.Minute); err != nil {
		return fmt.Errorf("%v: %s", err, bytes.TrimSpace(out.buf))
	}
	return nil
}

// nsSysProcAttr is sysProcAttr with the helper's new namespaces.
func nsSysProcAttr() *syscall.SysProcAttr {
	a := sysProcAttr()
	a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
	// The new user namespace gives the child every capability in it, but
	// an exec as any uid but 0 clears them: the helper keeps the two it
	// needs to build the private root and then drop them all.
	a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
	return a
}

// buildRoot makes the private root of m and moves the helper into it: a
// tmpfs holding the system paths read-only, a fresh /dev of harmless
// devices, the host's /proc, an empty /tmp with the session's temp dir,
// and the roots read-write (from the inherited descriptors where given).
// The helper then drops every capability the new user namespace gave
// (dropCapabilities), so that nothing the shell runs, even as uid 0
// there, has any.
func buildRoot(m mountPlan) error {
	if err := mustRoot("make mounts private", unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")); err != nil {
		return err
	}
	if err := mustRoot("tmpfs", unix.Mount("tmpfs", m.Dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755")); err != nil {
		return err
	}
	b := newRoot{dir: m.Dir}
	if err := b.system(m); err != nil {
		return err
	}
	if err := b.roots(m.Roots); err != nil {
		return err
	}
	return b.enter(m.Cwd)
}

// mustRoot wraps a step's error with what the step was.
func mustRoot(what string, err error) error {
	if err != nil {
		return fmt.Errorf("private root: %s: %w", what, err)
	}
	return nil
}

// newRoot is the private root being built on a tmpfs at dir.
type newRoot struct{ dir string }

// bind mounts src at dst below the new root, read-only if ro, making a
// directory or an empty file there to mount on.
func (b newRoot) bind(src, dst string, ro bool) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	target := filepath.Join(b.dir, dst)
	if fi.IsDir() {
		err = os.MkdirAll(target, 0o755)
	} else if err = os.MkdirAll(filepath.Dir(target), 0o755); err == nil {
		var f *os.File
		if f, err = os.OpenFile(target, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.Close()
		}
	}
	if err != nil {
		return err
	}
	if err := unix.Mount(src, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	if !ro {
		return nil
	}
	return remountReadOnly(target)
}

// system binds the system's directories (read-only; a link into /usr,
// as /bin on a merged-/usr system, made again as a link), its device
// nodes, /proc, a fresh /tmp and the session's private temp dir.
func (b newRoot) system(m mountPlan) error {
	for _, p := range m.RO {
		fi, err := os.Lstat(p)
		if err != nil || !filepath.IsAbs(p) {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			if target, err := os.Readlink(p); err == nil {
				if real, err := filepath.EvalSymlinks(p); err == nil && within(real, "/usr") && real != "/usr" {
					if err := os.MkdirAll(filepath.Dir(filepath.Join(b.dir, p)), 0o755); err != nil {
						return mustRoot(p, err)
					}
					if err := os.Symlink(target, filepath.Join(b.dir, p)); err != nil && !os.IsExist(err) {
						return mustRoot(p, err)
					}
					continue
				}
			}
		}
		if err := b.bind(p, p, true); err != nil && !os.IsNotExist(err) {
			return mustRoot(p, err)
		}
	}
	// The host's own device nodes, bound read-only: writing and reading
	// them is device I/O, which a read-only mount allows, while their
	// mode, owner and times cannot change (fsmcp as root owns them).
	for _, d := range systemDev {
		if err := b.bind(d, d, true); err != nil {
			return mustRoot(d, err)
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(b.dir, "dev", name)); err != nil {
			return mustRoot("/dev/"+name, err)
		}
	}
	if err := b.bind("/proc", "/proc", false); err != nil {
		return mustRoot("/proc", err)
	}
	if err := os.MkdirAll(filepath.Join(b.dir, "tmp"), 0o1777); err != nil {
		return mustRoot("/tmp", err)
	}
	if err := mustRoot("/tmp", os.Chmod(filepath.Join(b.dir, "tmp"), 0o1777)); err != nil {
		return err
	}
	if err := b.bind(m.Tmp, m.Tmp, false); err != nil {
		return mustRoot(m.Tmp, err)
	}
	return nil
}

// roots binds the roots read-write, shortest first (a root inside
// another is mounted over it), each the very directory fsmcp holds.
func (b newRoot) roots(rs []fdDir) error {
	roots := append([]fdDir{}, rs...)
	sort.SliceStable(roots, func(a, b int) bool { return len(roots[a].Name) < len(roots[b].Name) })
	for _, r := range roots {
		if r.FD < 0 {
			if err := b.bind(r.Name, r.Name, false); err != nil && !os.IsNotExist(err) {
				return mustRoot(r.Name, err)
			}
			continue
		}
		// A descriptor from fsmcp's mount namespace cannot be a bind
		// source here (EINVAL); its path can, and what got mounted must
		// then be that very directory, or the call fails.
		src, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", r.FD))
		if err != nil {
			return mustRoot(r.Name, err)
		}
		if err := b.bind(src, r.Name, false); err != nil {
			return mustRoot(r.Name, err)
		}
		var want, got unix.Stat_t
		if err := unix.Fstat(r.FD, &want); err != nil {
			return mustRoot(r.Name, err)
		}
		if err := unix.Stat(filepath.Join(b.dir, r.Name), &got); err != nil || got.Dev != want.Dev || got.Ino != want.Ino {
			return fmt.Errorf("allowed directory %s changed while the command was starting", r.Name)
		}
	}
	return nil
}

// enter makes the new root the process's root (pivot_root(".", "."):
// the old root ends up under the new one and is detached at once) and
// changes to cwd in it.
func (b newRoot) enter(cwd string) error {
	if err := mustRoot("chdir", unix.Chdir(b.dir)); err != nil {
		return err
	}
	if err := mustRoot("pivot_root", unix.PivotRoot(".", ".")); err != nil {
		return err
	}
	if err := mustRoot("detach the old root", unix.Unmount(".", unix.MNT_DETACH)); err != nil {
		return err
	}
	return mustRoot("chdir "+cwd, unix.Chdir(cwd))
}

// remountReadOnly makes the bind mount at target read-only (and nosuid),
// keeping the flags a user namespace cannot clear.
func remountReadOnly(target string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(target, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY | unix.MS_NOSUID)
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if int64(st.Flags)&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	return unix.Mount("", target, "", flags, "")
}

// dropCapabilities empties every capability set of the calling thread,
// which then execs the command: the ambient set, the bounding set (so
// that uid 0 regains nothing at exec) and the effective, permitted and
// inheritable sets. As root, bwrap keeps root's capabilities for the
// command (in its user namespace) unless told otherwise, and fsmcp's own
// namespaces give the helper all of them there.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("drop capabilities: ambient: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var held [2]unix.CapUserData
	if err := unix.Capget(&hdr, &held[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	if held[0].Permitted|held[1].Permitted == 0 {
		// Nothing held (a user other than root, without namespaces or in
		// bwrap's): the bounding set cannot be changed without
		// CAP_SETPCAP, and need not be, since no_new_privs (set with
		// Landlock, before the exec) keeps an exec from granting more
		// than is held.
		return nil
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); err != nil || in == 0 {
			continue // not in it, or unknown to this kernel
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			return fmt.Errorf("drop capabilities: bounding set: %w", err)
		}
	}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}
